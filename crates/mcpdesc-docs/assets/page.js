// mcpdesc docs page. Builds every list from the embedded index and a declaration's
// detail (schema tables, examples) only when it is opened. DOM is built with
// createElement/textContent; the one innerHTML sink takes description HTML that was
// sanitized by ammonia when the page was generated (Trusted Types enforce that no
// other sink exists).
(function () {
  'use strict';
  var policy = window.trustedTypes
    ? window.trustedTypes.createPolicy('mcpdesc', { createHTML: function (s) { return s; } })
    : null;
  var index = JSON.parse(document.getElementById('mcpdesc-index').textContent);
  var details = [];
  var state = { rev: '', q: '', tag: '' };
  var hay = index.decls.map(function (d) {
    return [d.name, d.title || '', d.search || ''].join('\n').toLowerCase();
  });
  var sections = {};
  index.kinds.forEach(function (k) {
    var sec = document.getElementById('sec-' + k.key);
    sections[k.key] = { sec: sec, list: sec.querySelector('.list'), count: sec.querySelector('.count'), items: [] };
  });

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function sanitized(html) {
    var d = el('div', 'md');
    d.innerHTML = policy ? policy.createHTML(html) : html;
    return d;
  }
  function link(href, text) {
    var a = el('a', null, text);
    if (/^(https?:\/\/|mailto:)/i.test(href)) {
      a.href = href;
      a.rel = 'noopener noreferrer nofollow';
    }
    return a;
  }
  function badge(b) {
    var cls = 'badge ' + (b.tone || 'info') + (b.default ? ' dflt' : '');
    var text = b.value ? b.label + ': ' + b.value : b.label;
    var s = el('span', cls, text);
    if (b.default) s.title = 'not declared; the spec default';
    if (b.default && b.value) s.textContent = text + ' (default)';
    return s;
  }
  // The script runs before the detail blocks are parsed (so a large page is usable
  // early); a detail opened before then is rendered once the document is complete.
  function withDetail(i, fn) {
    var node = details[i] ? null : document.getElementById('detail-' + i);
    if (!details[i] && !node && document.readyState === 'loading') {
      document.addEventListener('DOMContentLoaded', function () { withDetail(i, fn); }, { once: true });
      return;
    }
    if (!details[i]) details[i] = node ? JSON.parse(node.textContent) : { sections: [] };
    fn(details[i]);
  }

  // --- detail rendering -------------------------------------------------------
  function fields(items) {
    var dl = el('dl', 'fields');
    items.forEach(function (f) {
      dl.appendChild(el('dt', null, f.key));
      var dd = el('dd');
      var v = f.code ? el('code', null, f.value) : document.createTextNode(f.value);
      if (f.href) {
        var a = link(f.href, '');
        a.appendChild(v);
        dd.appendChild(a);
      } else {
        dd.appendChild(v);
      }
      dl.appendChild(dd);
    });
    return dl;
  }
  function schema(doc) {
    var wrap = el('div', 'schemadoc');
    var byName = {};
    doc.notes && doc.notes.forEach(function (n) { wrap.appendChild(el('p', 'note', n)); });
    doc.tables.forEach(function (t) {
      var box = el('div', 'tbl');
      if (t.name) {
        var h = el('h5');
        h.appendChild(el('span', 'tblname', t.name));
        if (t.recursive) h.appendChild(el('span', 'cycle', '↻ recursive'));
        box.appendChild(h);
        byName[t.name] = box;
      }
      if (t.summary) box.appendChild(el('p', 'note', t.summary));
      if (!t.rows.length) {
        box.appendChild(el('p', 'empty', 'no properties'));
        wrap.appendChild(box);
        return;
      }
      var table = el('table', 'schema');
      var head = el('tr');
      ['Property', 'Type', 'Required', 'Constraints', 'Default', 'Enum', 'Description'].forEach(function (c) {
        head.appendChild(el('th', null, c));
      });
      var thead = el('thead');
      thead.appendChild(head);
      table.appendChild(thead);
      var tbody = el('tbody');
      t.rows.forEach(function (r) {
        var tr = el('tr');
        var name = el('td', 'prop d' + Math.min(r.depth, 16));
        name.appendChild(el(r.prop ? 'code' : 'span', r.prop ? null : 'struct', r.name));
        tr.appendChild(name);
        var ty = el('td');
        if (r.link) {
          var a = el('a', null, r.type);
          a.href = '#';
          a.addEventListener('click', function (ev) {
            ev.preventDefault();
            var target = byName[r.link];
            if (target) target.scrollIntoView({ block: 'center' });
          });
          ty.appendChild(a);
        } else {
          ty.textContent = r.type;
        }
        if (r.cycle) ty.appendChild(el('span', 'cycle', '↻ cycle'));
        tr.appendChild(ty);
        var req = el('td');
        if (r.required) req.appendChild(el('span', 'req', 'required'));
        tr.appendChild(req);
        tr.appendChild(el('td', null, (r.constraints || []).join('; ')));
        tr.appendChild(el('td', 'mono', r.default || ''));
        tr.appendChild(el('td', 'mono', (r.enum || []).join(', ')));
        tr.appendChild(el('td', null, r.description || ''));
        tbody.appendChild(tr);
      });
      table.appendChild(tbody);
      box.appendChild(table);
      wrap.appendChild(box);
    });
    return wrap;
  }
  function block(b) {
    switch (b.t) {
      case 'rich': return sanitized(b.html);
      case 'fields': return fields(b.items);
      case 'badges': {
        var d = el('div', 'badges');
        b.items.forEach(function (x) { d.appendChild(badge(x)); });
        return d;
      }
      case 'schema': return schema(b);
      case 'example': {
        var ex = el('div', 'example');
        ex.appendChild(el('h5', null, b.name));
        b.parts.forEach(function (p) {
          ex.appendChild(el('div', 'lbl', p.label));
          ex.appendChild(el('pre', null, p.text));
        });
        return ex;
      }
      case 'code': return el('pre', null, b.text);
      default: return el('p', 'note', b.text || '');
    }
  }
  function renderDetail(body, decl, detail) {
    if (state.rev) {
      var info = index.revisions.filter(function (r) { return r.id === state.rev; })[0];
      var lacks = info ? info.lacks.filter(function (l) { return l.kind === decl.kind; }) : [];
      if (lacks.length) {
        body.appendChild(el('p', 'note lacks', 'Not defined in MCP ' + state.rev + ': ' + lacks.map(function (l) {
          return l.field + ' (' + l.phrase + ')';
        }).join(', ')));
      }
    }
    detail.sections.forEach(function (s) {
      if (s.heading) body.appendChild(el('h4', null, s.heading));
      s.blocks.forEach(function (b) { body.appendChild(block(b)); });
    });
  }

  // --- lists ------------------------------------------------------------------
  function item(i, det) {
    var d = index.decls[i];
    var li = el('li', 'decl');
    li.id = d.anchor;
    li.dataset.name = d.name;
    // The header: name, then title, then the rest, with a space between the parts so
    // the text never runs together. The name selects as a whole (CSS `user-select: all`:
    // a button's text is otherwise not selectable, and a word-wise double-click would
    // stop at `-` or `.`); the accessible name is the name, then the title, and the rest
    // is the description.
    var head = el('button', 'head');
    head.type = 'button';
    head.setAttribute('aria-expanded', 'false');
    var name = el('span', 'name', d.name);
    name.id = d.anchor + '-name';
    head.appendChild(name);
    var labels = [name.id];
    if (d.title) {
      var title = el('span', 'title', d.title);
      title.id = d.anchor + '-title';
      labels.push(title.id);
      head.appendChild(document.createTextNode(' '));
      head.appendChild(title);
    }
    head.setAttribute('aria-labelledby', labels.join(' '));
    var more = [];
    if (d.scope && !state.rev) {
      more.push(el('span', 'scope' + (d.narrowed ? ' narrowed' : ''), d.narrowed ? d.scope.join(', ') : 'all revisions'));
    }
    (d.badges || []).forEach(function (b) { more.push(badge(b)); });
    (d.tags || []).forEach(function (t) { more.push(el('span', 'tag', t)); });
    (d.toolsets || []).forEach(function (t) { more.push(el('span', 'toolset', t)); });
    if (d.summary) more.push(el('span', 'summary', d.summary));
    if (more.length) {
      var rest = el('span', 'more');
      rest.id = d.anchor + '-more';
      more.forEach(function (m, k) {
        if (k) rest.appendChild(document.createTextNode(' '));
        rest.appendChild(m);
      });
      head.appendChild(document.createTextNode(' '));
      head.appendChild(rest);
      head.setAttribute('aria-describedby', rest.id);
    }
    var body = el('div', 'body');
    body.hidden = true;
    var done = false;
    head.addEventListener('click', function (e) {
      // A double-click selects the name: its second click does not toggle again, and a
      // single click leaves no selection behind.
      if (e.detail > 1) return;
      var sel = window.getSelection();
      if (sel && !sel.isCollapsed && name.contains(sel.anchorNode)) sel.removeAllRanges();
      if (!done) {
        done = true;
        withDetail(det, function (detail) { renderDetail(body, d, detail); });
      }
      body.hidden = !body.hidden;
      head.setAttribute('aria-expanded', String(!body.hidden));
    });
    li.appendChild(head);
    li.appendChild(body);
    return li;
  }
  function currentItems() {
    if (!state.rev) return index.decls.map(function (d, i) { return [i, d.detail]; });
    var v = index.views.filter(function (v) { return v.revision === state.rev; })[0];
    return v ? v.items : [];
  }
  function rebuild() {
    Object.keys(sections).forEach(function (k) { sections[k].items = []; });
    var frags = {};
    currentItems().forEach(function (pair) {
      var d = index.decls[pair[0]];
      var li = item(pair[0], pair[1]);
      (frags[d.kind] = frags[d.kind] || document.createDocumentFragment()).appendChild(li);
      sections[d.kind].items.push({ li: li, i: pair[0] });
    });
    Object.keys(sections).forEach(function (k) {
      var s = sections[k];
      s.list.replaceChildren(frags[k] || document.createDocumentFragment());
      s.sec.hidden = s.items.length === 0;
    });
    var note = document.getElementById('revnote');
    var info = index.revisions.filter(function (r) { return r.id === state.rev; })[0];
    if (info && info.lacks.length) {
      var seen = {};
      var words = [];
      info.lacks.forEach(function (l) {
        if (!seen[l.field]) { seen[l.field] = 1; words.push(l.field + ' (' + l.phrase + ')'); }
      });
      note.textContent = 'Effective Protocol View of MCP ' + state.rev + '. Not defined at this revision: ' + words.join(', ') + '.';
      note.hidden = false;
    } else if (state.rev) {
      note.textContent = 'Effective Protocol View of MCP ' + state.rev + '.';
      note.hidden = false;
    } else {
      note.hidden = true;
    }
    filter();
  }
  function filter() {
    var words = state.q.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = 0;
    var total = 0;
    Object.keys(sections).forEach(function (k) {
      var s = sections[k];
      var n = 0;
      s.items.forEach(function (it) {
        var d = index.decls[it.i];
        var ok = words.every(function (w) { return hay[it.i].indexOf(w) !== -1; }) &&
          (!state.tag || (d.tags || []).concat(d.toolsets || []).indexOf(state.tag) !== -1);
        it.li.hidden = !ok;
        if (ok) n++;
      });
      s.count.textContent = n === s.items.length ? String(n) : n + ' of ' + s.items.length;
      shown += n;
      total += s.items.length;
    });
    document.getElementById('shown').textContent = shown === total ? total + ' declarations' : shown + ' of ' + total + ' shown';
  }

  // --- controls ---------------------------------------------------------------
  var tagSel = document.getElementById('tag');
  var tags = index.tags.map(function (t) { return t.name; });
  var extra = {};
  index.decls.forEach(function (d) {
    (d.tags || []).concat(d.toolsets || []).forEach(function (t) { if (tags.indexOf(t) === -1) extra[t] = 1; });
  });
  tags.concat(Object.keys(extra).sort()).forEach(function (t) {
    var o = el('option', null, t);
    o.value = t;
    tagSel.appendChild(o);
  });
  tagSel.parentNode.hidden = tagSel.options.length === 1;
  document.getElementById('rev').addEventListener('change', function (e) { state.rev = e.target.value; rebuild(); });
  document.getElementById('q').addEventListener('input', function (e) { state.q = e.target.value; filter(); });
  tagSel.addEventListener('change', function (e) { state.tag = e.target.value; filter(); });
  rebuild();
  document.body.dataset.readyMs = String(Math.round(performance.now()));
  document.body.dataset.ready = '1';
})();

// Drives generated `mcpdesc docs` pages in headless Chromium (puppeteer-core pointed at
// an installed browser; nothing is downloaded) and reports what the live DOM shows as
// JSON on stdout. The Rust tests (tests/docs.rs) decide what is right; this script
// only observes.
//
// usage: node driver.mjs JOB.json   (JOB: {chromium, pages: [{name, file, screenshot,
//   query?, open?: [{rev, tool, nth?}], headers?: [tool], openAll?}]})
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { pathToFileURL } from 'node:url';

const job = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const require = createRequire(path.join(job.nodeModules, 'noop.js'));
const puppeteer = require('puppeteer-core');

const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpdesc-docs-chromium-'));
const browser = await puppeteer.launch({
  executablePath: job.chromium,
  headless: 'shell',
  userDataDir: profile,
  args: [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    '--disable-dev-shm-usage', '--hide-scrollbars', '--font-render-hinting=none',
  ],
});

// Decodes an 8-bit, non-interlaced RGB/RGBA PNG (what Chromium writes) and counts the
// pixels that differ from the most common colour (the background).
function pngStats(buf) {
  let off = 8;
  let width = 0, height = 0, colorType = 0, depth = 0;
  const idat = [];
  while (off < buf.length) {
    const len = buf.readUInt32BE(off);
    const type = buf.toString('ascii', off + 4, off + 8);
    const data = buf.subarray(off + 8, off + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0); height = data.readUInt32BE(4);
      depth = data[8]; colorType = data[9];
    } else if (type === 'IDAT') idat.push(data);
    off += 12 + len;
  }
  if (depth !== 8 || (colorType !== 2 && colorType !== 6)) return { width, height, error: 'unsupported PNG' };
  const bpp = colorType === 6 ? 4 : 3;
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  const px = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)];
    const src = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? px[y * stride + x - bpp] : 0;
      const b = y > 0 ? px[(y - 1) * stride + x] : 0;
      const c = x >= bpp && y > 0 ? px[(y - 1) * stride + x - bpp] : 0;
      let v = src[x];
      if (f === 1) v += a;
      else if (f === 2) v += b;
      else if (f === 3) v += (a + b) >> 1;
      else if (f === 4) {
        const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      px[y * stride + x] = v & 255;
    }
  }
  const counts = new Map();
  for (let i = 0; i < px.length; i += bpp) {
    const k = (px[i] << 16) | (px[i + 1] << 8) | px[i + 2];
    counts.set(k, (counts.get(k) || 0) + 1);
  }
  let bg = 0, bgCount = 0;
  for (const [k, n] of counts) if (n > bgCount) { bg = k; bgCount = n; }
  return { width, height, colors: counts.size, nonBackground: width * height - bgCount, background: bg };
}

async function names(page) {
  return page.$$eval('#sec-tools li.decl:not([hidden])', (lis) => lis.map((li) => li.dataset.name));
}

async function selectRev(page, rev) {
  await page.select('#rev', rev);
}

async function tablesOf(page, tool, nth) {
  // Opens the nth shown tool named `tool` and reports its schema tables.
  return page.evaluate((tool, nth) => {
    const lis = [...document.querySelectorAll('#sec-tools li.decl:not([hidden])')].filter((li) => li.dataset.name === tool);
    const li = lis[nth || 0];
    if (!li) return null;
    li.querySelector('.head').click();
    const body = li.querySelector('.body');
    const sections = [];
    let cur = null;
    for (const node of body.children) {
      if (node.tagName === 'H4') { cur = { heading: node.textContent, tables: [], text: [] }; sections.push(cur); continue; }
      if (!cur) { cur = { heading: '', tables: [], text: [] }; sections.push(cur); }
      cur.text.push(node.textContent);
      for (const t of node.querySelectorAll('.tbl')) {
        const rows = [...t.querySelectorAll('tbody tr')].map((tr) => {
          const c = tr.children;
          return { name: c[0].textContent, depth: Number((c[0].className.match(/\bd(\d+)\b/) || [0, 0])[1]), type: c[1].textContent, required: !!c[2].querySelector('.req') };
        });
        const h = t.querySelector('h5');
        const s = t.querySelector('p.note');
        sections[sections.length - 1].tables.push({ name: h ? h.textContent : '', summary: s ? s.textContent : '', rows });
      }
    }
    return { visible: !body.hidden, required: body.querySelectorAll('.req').length, sections };
  }, tool, nth);
}

// Double-clicks a tool header's name as a user does (a click, then a second click
// counted as the double-click) and reports what is selected after each, the button's
// state, its accessible name and description (Chromium's accessibility tree) and its
// text content.
async function header(page, tool) {
  const li = await page.evaluateHandle((tool) =>
    [...document.querySelectorAll('#sec-tools li.decl:not([hidden])')].find((l) => l.dataset.name === tool) || null, tool);
  const head = li.asElement() && await li.asElement().$('.head');
  if (!head) return null;
  await head.evaluate((h) => h.scrollIntoView({ block: 'center' }));
  const box = await (await head.$('.name')).boundingBox();
  const x = box.x + Math.min(4, box.width / 2), y = box.y + box.height / 2;
  const selection = () => page.evaluate(() => String(window.getSelection()));
  await page.mouse.click(x, y, { clickCount: 1 });
  const afterClick = await selection();
  await page.mouse.click(x, y, { clickCount: 2 });
  const afterDoubleClick = await selection();
  const ax = await page.accessibility.snapshot({ root: head, interestingOnly: false });
  const r = {
    afterClick, afterDoubleClick,
    expanded: await head.evaluate((h) => h.getAttribute('aria-expanded')),
    role: ax && ax.role, name: ax && ax.name, description: (ax && ax.description) || '',
    text: await head.evaluate((h) => h.textContent),
  };
  await page.evaluate(() => window.getSelection().removeAllRanges());
  return r;
}

const results = [];
for (const spec of job.pages) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  const consoleErrors = [];
  const requests = [];
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => consoleErrors.push('pageerror: ' + e.message));
  page.on('request', (r) => { if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) requests.push(r.url()); });
  await page.evaluateOnNewDocument(() => {
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__csp.push(e.violatedDirective + ' ' + (e.blockedURI || '') + ' ' + (e.sample || ''));
    });
  });
  const url = pathToFileURL(spec.file).href;
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForFunction(() => document.body && document.body.dataset.ready === '1', { timeout: 30000 });
  const readyMs = await page.evaluate(() => Number(document.body.dataset.readyMs));
  const r = { name: spec.name, readyMs, title: await page.title() };
  r.revisions = await page.$$eval('#rev option', (os) => os.map((o) => o.value).filter(Boolean));
  r.all = await names(page);
  r.scopes = await page.$$eval('#sec-tools li.decl .scope', (s) => s.map((x) => x.textContent));
  r.byRevision = {};
  for (const rev of r.revisions) {
    await selectRev(page, rev);
    r.byRevision[rev] = await names(page);
  }
  await selectRev(page, '');
  if (spec.query !== undefined) {
    await page.type('#q', spec.query);
    r.search = await names(page);
    await page.$eval('#q', (q) => { q.value = ''; q.dispatchEvent(new Event('input')); });
  }
  r.opened = [];
  for (const o of spec.open || []) {
    await selectRev(page, o.rev || '');
    r.opened.push({ rev: o.rev || '', tool: o.tool, detail: await tablesOf(page, o.tool, o.nth) });
  }
  await selectRev(page, '');
  r.headers = [];
  for (const tool of spec.headers || []) r.headers.push({ tool, ...(await header(page, tool)) });
  if (spec.openAll) {
    await page.$$eval('li.decl .head', (hs) => hs.forEach((h) => h.click()));
    for (const rev of r.revisions) {
      await selectRev(page, rev);
      await page.$$eval('li.decl .head', (hs) => hs.forEach((h) => h.click()));
    }
    await selectRev(page, '');
    await page.$$eval('li.decl .head', (hs) => hs.forEach((h) => h.click()));
    r.bodyText = await page.evaluate(() => document.body.innerText.length);
  }
  if (spec.screenshot) {
    if (spec.screenshotOpen) {
      await page.evaluate((tool) => {
        const li = [...document.querySelectorAll('#sec-tools li.decl')].find((l) => l.dataset.name === tool);
        if (li && li.querySelector('.body').hidden) li.querySelector('.head').click();
      }, spec.screenshotOpen);
    }
    await page.screenshot({ path: spec.screenshot });
    r.screenshot = pngStats(fs.readFileSync(spec.screenshot));
  }
  r.pwned = await page.evaluate(() => typeof window.__pwned !== 'undefined');
  r.finalTitle = await page.title();
  r.csp = await page.evaluate(() => window.__csp);
  r.consoleErrors = consoleErrors;
  r.requests = requests;
  results.push(r);
  await page.close();
}
await browser.close();
fs.rmSync(profile, { recursive: true, force: true });
process.stdout.write(JSON.stringify(results));

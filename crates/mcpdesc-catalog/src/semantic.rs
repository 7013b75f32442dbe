//! The semantic half of the hybrid search: the compiled-in static embedding model
//! ([`mcpdesc_embed`], distilled from all-MiniLM-L6-v2) embeds each tool's text once at
//! index time and the query at search time; tools rank by cosine similarity. By default
//! it ranks the tools BM25F has no evidence for, after BM25F's hits (lexical-first
//! fusion, [`crate::search::Fusion`]).

use crate::search::{Semantic, ToolText};
use mcpdesc_embed::StaticModel;

/// The tools' embeddings, one row of `dim` floats per tool (unit length or zero).
#[derive(Debug)]
pub struct Embeddings {
    model: &'static StaticModel,
    dim: usize,
    rows: Vec<f32>,
}

impl Embeddings {
    /// A ranker over the compiled-in model (decoded on first use, once per process).
    pub fn embedded() -> Embeddings {
        let model = StaticModel::embedded();
        Embeddings {
            model,
            dim: model.dim(),
            rows: Vec::new(),
        }
    }
}

/// What is embedded of a tool: its name's words, title, the first sentence of its
/// description, its toolsets and its path; a mean of token vectors blurs as a text
/// grows, so the long tail of a description is left to BM25F.
fn tool_text(t: &ToolText) -> String {
    use crate::search::Field;
    let mut s = t.name.replace(['_', '-', '.'], " ");
    let description = crate::facade::first_sentence(&t.fields[Field::Description as usize]);
    for part in [
        t.fields[Field::Title as usize].as_str(),
        description.as_str(),
        t.fields[Field::Toolsets as usize].as_str(),
        t.fields[Field::Path as usize].as_str(),
    ] {
        if !part.is_empty() {
            s.push_str(". ");
            s.push_str(part);
        }
    }
    s
}

impl Semantic for Embeddings {
    fn index(&mut self, tools: &[&ToolText]) {
        self.rows = Vec::with_capacity(tools.len() * self.dim);
        for t in tools {
            let v = self.model.embed(&tool_text(t));
            self.rows.extend_from_slice(&v);
        }
    }

    fn similarities(&self, query: &str) -> Vec<f32> {
        // The tokenizer is linear; bound the query it sees (a request is a sentence or two).
        let query: String = query.chars().take(4096).collect();
        let q = self.model.embed(&query);
        if q.iter().all(|x| *x == 0.0) {
            return Vec::new();
        }
        self.rows
            .chunks_exact(self.dim)
            .map(|row| row.iter().zip(&q).map(|(a, b)| a * b).sum::<f32>())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{Entry, Field, Filter, Index};

    fn entry(name: &str, title: &str) -> Entry {
        Entry {
            text: ToolText {
                name: name.into(),
                ..Default::default()
            }
            .with(Field::Name, name)
            .with(Field::Title, title),
            toolsets: Vec::new(),
            read_only: true,
        }
    }

    #[test]
    fn words_the_tools_do_not_use_still_find_them() {
        let tools = vec![
            entry("movie_credits", "Get the cast and crew of a movie"),
            entry("delete_webhook", "Delete a webhook"),
            entry("weather_forecast", "Daily weather forecast for a city"),
        ];
        let lexical = Index::build(tools.clone(), None);
        let hybrid = Index::build(tools, Some(Box::new(Embeddings::embedded())));
        let q = "who acted in the film";
        // No word of the query is in any tool: BM25F finds nothing, the embedding does.
        assert!(lexical.search(q, 3, &Filter::default()).is_empty());
        let hits = hybrid.search(q, 3, &Filter::default());
        assert_eq!(hybrid.name(hits[0].tool), "movie_credits");
        let hits = hybrid.search("will it rain tomorrow in Paris", 3, &Filter::default());
        assert_eq!(hybrid.name(hits[0].tool), "weather_forecast");
    }
}

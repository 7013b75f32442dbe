//! Types of the tools of the MCP server Pet Store (3.0).

use serde::{Deserialize, Serialize};

/// Input of the `list_pets` tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListPetsInput {
    /// Default: 20
    #[serde(rename = "limit", default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<i64>,
    #[serde(rename = "X-Request-Id")]
    pub x_request_id: String,
    /// Deprecated.
    #[serde(rename = "session", default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
}

/// Structured output of the `list_pets` tool.
pub type ListPetsOutput = Vec<Pet>;

/// Input of the `create_pet` tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CreatePetInput {
    #[serde(rename = "name")]
    pub name: String,
    #[serde(rename = "tag", default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    #[serde(rename = "photo", default, skip_serializing_if = "Option::is_none")]
    pub photo: Option<String>,
}

/// Structured output of the `create_pet` tool.
pub type CreatePetOutput = Pet;

/// Input of the `get_pet` tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GetPetInput {
    /// Pet id
    #[serde(rename = "id__path")]
    pub id_path: i64,
    /// Another id (clash)
    #[serde(rename = "id__query", default, skip_serializing_if = "Option::is_none")]
    pub id_query: Option<String>,
}

/// Structured output of the `get_pet` tool.
pub type GetPetOutput = Pet;

/// Input of the `replace_pet` tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReplacePetInput {
    /// Pet id
    #[serde(rename = "id__path")]
    pub id_path: i64,
    /// body id wins the plain name
    #[serde(rename = "id", default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(rename = "name", default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// Input of the `delete_pet` tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeletePetInput {
    /// Pet id
    #[serde(rename = "id")]
    pub id: i64,
}

/// Structured output of the `delete_pet` tool.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct DeletePetOutput {
    #[serde(rename = "deleted", default, skip_serializing_if = "Option::is_none")]
    pub deleted: Option<bool>,
}

/// Input of the `tweak_pet` tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TweakPetInput {
    /// Pet id
    #[serde(rename = "id")]
    pub id: i64,
    #[serde(rename = "body", default, skip_serializing_if = "Option::is_none")]
    pub body: Option<Vec<String>>,
}

/// Structured output of the `tweak_pet` tool.
pub type TweakPetOutput = Option<String>;

/// Input of the `upload_photo` tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UploadPhotoInput {
    #[serde(rename = "id")]
    pub id: i64,
    #[serde(rename = "body")]
    pub body: String,
}

/// Input of the `upload_card` tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UploadCardInput {
    #[serde(rename = "id")]
    pub id: i64,
    #[serde(rename = "caption", default, skip_serializing_if = "Option::is_none")]
    pub caption: Option<String>,
    #[serde(rename = "image", default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
}

/// Input of the `post_login` tool.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PostLoginInput {
    #[serde(rename = "user", default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    #[serde(rename = "password", default, skip_serializing_if = "Option::is_none")]
    pub password: Option<String>,
}

/// Structured output of the `post_login` tool.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PostLoginOutput {
    #[serde(rename = "token", default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

/// Input of the `get_tree_c3b76d` tool.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct GetTreeC3b76dInput {
}

/// Structured output of the `get_tree_c3b76d` tool.
pub type GetTreeC3b76dOutput = Node;

/// Input of the `get_remote` tool.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct GetRemoteInput {
}

/// Structured output of the `get_remote` tool.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct GetRemoteOutput {
    #[serde(rename = "thing", default, skip_serializing_if = "Option::is_none")]
    pub thing: Option<serde_json::Value>,
}

/// Input of the `search_things_v2` tool.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SearchThingsV2Input {
    #[serde(rename = "filter", default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<SearchThingsV2InputFilter>,
    #[serde(rename = "tags", default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
}

/// Structured output of the `search_things_v2` tool.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SearchThingsV2Output {
    #[serde(rename = "next", default, skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
    #[serde(rename = "items", default, skip_serializing_if = "Option::is_none")]
    pub items: Option<Vec<Pet>>,
}

/// Input of the `head_notes` tool.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct HeadNotesInput {
}

/// Input of the `notes_options` tool.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct NotesOptionsInput {
}

/// Structured output of the `notes_options` tool.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct NotesOptionsOutput {
    #[serde(rename = "allow", default, skip_serializing_if = "Option::is_none")]
    pub allow: Option<String>,
}

/// Input of the `add_note` tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AddNoteInput {
    #[serde(rename = "body")]
    pub body: String,
}

/// Structured output of the `add_note` tool.
pub type AddNoteOutput = i64;

/// Input of the `get_tree_eed841` tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GetTreeEed841Input {
    #[serde(rename = "treeId")]
    pub tree_id: String,
}

/// Structured output of the `get_tree_eed841` tool.
pub type GetTreeEed841Output = Node;

/// Input of the `generate_the_quarterly_financial_c4dda8_all_subsidiaries_by_year` tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GenerateTheQuarterlyFinancialC4dda8AllSubsidiariesByYearInput {
    #[serde(rename = "year")]
    pub year: i64,
}

/// Structured output of the `generate_the_quarterly_financial_c4dda8_all_subsidiaries_by_year` tool.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct GenerateTheQuarterlyFinancialC4dda8AllSubsidiariesByYearOutput {
    #[serde(rename = "total", default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pet {
    #[serde(rename = "id")]
    pub id: i64,
    #[serde(rename = "name")]
    pub name: String,
    #[serde(rename = "tag", default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    #[serde(rename = "owner", default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<Owner>,
    #[serde(rename = "weight", default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<f64>,
    #[serde(rename = "kind", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<PetKind>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Owner {
    #[serde(rename = "name", default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(rename = "error", default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Error08d261abd277>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Error08d261abd277 {
    #[serde(rename = "code")]
    pub code: i64,
    #[serde(rename = "message", default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PetKind {
    #[serde(rename = "dog")]
    Dog,
    #[serde(rename = "cat")]
    Cat,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Node {
    #[serde(rename = "value", default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(rename = "children", default, skip_serializing_if = "Option::is_none")]
    pub children: Option<Vec<Node>>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SearchThingsV2InputFilter {
    #[serde(rename = "q", default, skip_serializing_if = "Option::is_none")]
    pub q: Option<String>,
}
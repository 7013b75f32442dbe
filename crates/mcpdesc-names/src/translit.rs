//! ASCII folding of Latin letters (step 1 of [`crate::normalize`]).
//!
//! Covers Latin-1 Supplement (U+00C0–U+00FF), Latin Extended-A (U+0100–U+017F) and
//! the Romanian comma-below letters. Combining marks are removed (so decomposed
//! `e` + U+0301 folds like precomposed `é`); every other non-ASCII character is a
//! word separator. No Unicode normalization library is involved, so the result only
//! depends on this table.

/// Letters U+0100..=U+017F, 16 per row. `*` marks the four ligatures that expand to
/// two letters (handled in [`fold`] before the table is consulted).
const LATIN_EXTENDED_A: [&str; 8] = [
    "AaAaAaCcCcCcCcDd", // U+0100
    "DdEeEeEeEeEeGgGg", // U+0110
    "GgGgHhHhIiIiIiIi", // U+0120
    "Ii**JjKkkLlLlLlL", // U+0130
    "lLlNnNnNnnNnOoOo", // U+0140
    "Oo**RrRrRrSsSsSs", // U+0150
    "SsTtTtTtUuUuUuUu", // U+0160
    "UuUuWwYyYZzZzZzs", // U+0170
];

/// Whether `c` is a combining mark that only decorates the previous letter.
pub(crate) fn is_combining(c: char) -> bool {
    matches!(c as u32,
        0x0300..=0x036F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0xFE20..=0xFE2F)
}

/// ASCII replacement for one non-ASCII character, or `None` when it has none (the
/// caller then treats it as a separator). `next_is_lower` picks the capitalisation of
/// two-letter expansions of capitals: `Æble` → `Aeble` (one word) but `ÆON` → `AEON`.
pub(crate) fn fold(c: char, next_is_lower: bool) -> Option<&'static str> {
    let pair =
        |title: &'static str, upper: &'static str| Some(if next_is_lower { title } else { upper });
    let s = match c {
        'À' | 'Á' | 'Â' | 'Ã' | 'Ä' | 'Å' => "A",
        'Æ' => return pair("Ae", "AE"),
        'Ç' => "C",
        'È' | 'É' | 'Ê' | 'Ë' => "E",
        'Ì' | 'Í' | 'Î' | 'Ï' => "I",
        'Ð' => "D",
        'Ñ' => "N",
        'Ò' | 'Ó' | 'Ô' | 'Õ' | 'Ö' | 'Ø' => "O",
        'Ù' | 'Ú' | 'Û' | 'Ü' => "U",
        'Ý' => "Y",
        'Þ' => return pair("Th", "TH"),
        'ß' => "ss",
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' => "a",
        'æ' => "ae",
        'ç' => "c",
        'è' | 'é' | 'ê' | 'ë' => "e",
        'ì' | 'í' | 'î' | 'ï' => "i",
        'ð' => "d",
        'ñ' => "n",
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' => "o",
        'ù' | 'ú' | 'û' | 'ü' => "u",
        'ý' | 'ÿ' => "y",
        'þ' => "th",
        'Ĳ' => return pair("Ij", "IJ"),
        'ĳ' => "ij",
        'Œ' => return pair("Oe", "OE"),
        'œ' => "oe",
        'Ș' => "S",
        'ș' => "s",
        'Ț' => "T",
        'ț' => "t",
        '\u{0100}'..='\u{017F}' => {
            let i = c as usize - 0x100;
            let row = LATIN_EXTENDED_A[i / 16];
            let at = i % 16;
            // Rows are ASCII, so byte slicing is character slicing.
            return row.get(at..at + 1).filter(|s| *s != "*");
        }
        _ => return None,
    };
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_rows_are_sixteen_ascii_letters() {
        for row in LATIN_EXTENDED_A {
            assert_eq!(row.len(), 16, "{row}");
            assert!(
                row.bytes().all(|b| b.is_ascii_alphabetic() || b == b'*'),
                "{row}"
            );
        }
    }

    #[test]
    fn spot_checks_against_the_unicode_names() {
        // Each pair: character, the Latin letter its Unicode name is based on.
        let cases = [
            ('Ā', "A"),
            ('ą', "a"),
            ('Č', "C"),
            ('đ', "d"),
            ('Ę', "E"),
            ('ğ', "g"),
            ('Ħ', "H"),
            ('İ', "I"),
            ('ı', "i"),
            ('Ĵ', "J"),
            ('ĸ', "k"),
            ('Ł', "L"),
            ('ł', "l"),
            ('ŉ', "n"),
            ('Ŋ', "N"),
            ('ő', "o"),
            ('Ř', "R"),
            ('ś', "s"),
            ('Š', "S"),
            ('ţ', "t"),
            ('Ů', "U"),
            ('ű', "u"),
            ('Ŵ', "W"),
            ('Ÿ', "Y"),
            ('ź', "z"),
            ('Ž', "Z"),
            ('ſ', "s"),
            ('ß', "ss"),
            ('ø', "o"),
            ('Ð', "D"),
        ];
        for (c, want) in cases {
            assert_eq!(fold(c, true), Some(want), "{c}");
        }
        assert_eq!(fold('Œ', true), Some("Oe"));
        assert_eq!(fold('Œ', false), Some("OE"));
        assert_eq!(fold('ĳ', false), Some("ij"));
        assert_eq!(fold('×', true), None);
        assert_eq!(fold('😀', true), None);
        assert_eq!(fold('Ж', true), None);
        assert!(is_combining('\u{0301}'));
        assert!(!is_combining('a'));
    }
}

//! Start-up detection of entity types whose keys can collide (S5). The decision itself lives
//! in `monotable_design::overlap`, shared with the design lint (`MT003`); this file only
//! converts the derive's static templates into its parts.

use monotable_design::{overlap, Part};

use crate::schema::{Segment, Template};

fn parts(t: &Template) -> Vec<Part<'static>> {
    t.segments
        .iter()
        .map(|s| match s {
            Segment::Lit(l) => Part::Lit(l),
            Segment::Field(f) => Part::Var(f),
        })
        .collect()
}

/// Whether two templates can render the same string.
pub fn templates_overlap(a: &Template, b: &Template) -> bool {
    overlap::templates_overlap(&parts(a), &parts(b))
}

/// Whether `begins_with(key, prefix)` can match a key rendered from `t`.
pub fn prefix_reaches(prefix: &str, t: &Template) -> bool {
    overlap::prefix_reaches(prefix, &parts(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn static_templates_reach_the_shared_decision() {
        let user = Template { source: "USER#{id}", segments: &[Segment::Lit("USER#"), Segment::Field("id")] };
        let org = Template { source: "ORG#{id}", segments: &[Segment::Lit("ORG#"), Segment::Field("id")] };
        assert!(!templates_overlap(&user, &org));
        assert!(templates_overlap(&user, &user));
        assert!(prefix_reaches("USER#", &user));
    }
}

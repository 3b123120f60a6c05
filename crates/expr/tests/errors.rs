//! Every validation error DynamoDB raises for expressions: kind and exact message.

mod common;

use std::collections::HashMap;

use common::*;
use monotable_expr::{ErrorKind, ExprError, ExpressionKind, Params};
use monotable_types::AttributeValue;

/// Which entry point a row exercises.
#[derive(Clone, Copy)]
enum Entry {
    Condition,
    Filter,
    Update,
    Projection,
    Key,
}

struct Row {
    entry: Entry,
    text: String,
    kind: ErrorKind,
    message: &'static str,
}

fn row(entry: Entry, text: &str, kind: ErrorKind, message: &'static str) -> Row {
    Row { entry, text: text.to_owned(), kind, message }
}

fn run(
    entry: Entry,
    text: &str,
    names: &HashMap<String, String>,
    values: &HashMap<String, AttributeValue>,
) -> Result<(), ExprError> {
    let mut p = Params::new(Some(names), Some(values));
    match entry {
        Entry::Condition => p.condition(text, ExpressionKind::Condition).map(drop),
        Entry::Filter => p.condition(text, ExpressionKind::Filter).map(drop),
        Entry::Update => p.update(text, &["pk", "sk"]).map(drop),
        Entry::Projection => p.projection(text).map(drop),
        Entry::Key => p.key_condition(text, "pk", Some("sk")).map(drop),
    }
}

fn check(rows: Vec<Row>) {
    let names = names(&[("#a", "a"), ("#b", "b"), ("#pk", "pk")]);
    let mut values = std_values();
    values.insert(":bad".into(), s("XX"));
    values.insert(":sb".into(), s("b"));
    let mut failures = Vec::new();
    for r in rows {
        match run(r.entry, &r.text, &names, &values) {
            Err(e) if e.kind() == r.kind && e.message() == r.message => {}
            other => failures
                .push(format!("{:?}\n   expected {:?}: {}\n   got {:?}", r.text, r.kind, r.message, other)),
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn syntax_errors_name_the_token_and_its_neighbours() {
    use Entry::*;
    use ErrorKind::Syntax;
    check(vec![
        row(
            Condition,
            "foo",
            Syntax,
            r#"Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "foo""#,
        ),
        row(
            Condition,
            "attribute_not_exists(",
            Syntax,
            r#"Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "(""#,
        ),
        row(
            Condition,
            "attribute_type()",
            Syntax,
            r#"Invalid ConditionExpression: Syntax error; token: ")", near: "()""#,
        ),
        row(
            Filter,
            "contains (a, :v",
            Syntax,
            r#"Invalid FilterExpression: Syntax error; token: "<EOF>", near: ":v""#,
        ),
        row(
            Filter,
            "NOT (#a)",
            Syntax,
            r#"Invalid FilterExpression: Syntax error; token: "<EOF>", near: ")""#,
        ),
        row(
            Projection,
            "l[a]",
            Syntax,
            r#"Invalid ProjectionExpression: Syntax error; token: "a", near: "[a]""#,
        ),
        row(
            Update,
            "SET _123 = :v",
            Syntax,
            r#"Invalid UpdateExpression: Syntax error; token: "_", near: "SET _123""#,
        ),
        row(
            Update,
            "SET a = :v,",
            Syntax,
            r#"Invalid UpdateExpression: Syntax error; token: "<EOF>", near: ",""#,
        ),
        row(Update, "SET", Syntax, r#"Invalid UpdateExpression: Syntax error; token: "<EOF>", near: "SET""#),
        row(Update, "SET x y", Syntax, r#"Invalid UpdateExpression: Syntax error; token: "y", near: "x y""#),
        row(
            Key,
            "pk = :v AND",
            Syntax,
            r#"Invalid KeyConditionExpression: Syntax error; token: "<EOF>", near: "AND""#,
        ),
        row(
            Condition,
            "a = 5",
            Syntax,
            r#"Invalid ConditionExpression: Syntax error; token: "5", near: "= 5""#,
        ),
        row(
            Condition,
            "a IN ()",
            Syntax,
            r#"Invalid ConditionExpression: Syntax error; token: ")", near: "()""#,
        ),
    ]);
}

#[test]
fn empty_long_and_deep_expressions_are_refused() {
    use Entry::*;
    let long = format!("a = :v{}", " ".repeat(4091));
    assert_eq!(long.len(), 4097);
    let deep = format!("{}a = :v{}", "(".repeat(101), ")".repeat(101));
    // 301 operators: 151 comparisons and the 150 ANDs between them.
    let many = vec!["a = :v"; 151].join(" AND ");
    check(vec![
        row(Condition, "", ErrorKind::Empty, "Invalid ConditionExpression: The expression can not be empty;"),
        row(Update, "", ErrorKind::Empty, "Invalid UpdateExpression: The expression can not be empty;"),
        row(Update, "  ", ErrorKind::Syntax, r#"Invalid UpdateExpression: Syntax error; token: "<EOF>", near: "  ""#),
        Row {
            entry: Condition,
            text: long,
            kind: ErrorKind::TooLong,
            message: "Invalid ConditionExpression: Expression size has exceeded the maximum allowed size; expression size: 4097",
        },
        Row {
            entry: Filter,
            text: deep,
            kind: ErrorKind::TooDeep,
            message: "Invalid FilterExpression: The expression is nested too deeply; maximum nesting: 100",
        },
        Row {
            entry: Condition,
            text: many,
            kind: ErrorKind::TooManyOperators,
            message: "Invalid ConditionExpression: The expression contains too many operators; operator count: 301",
        },
    ]);
}

#[test]
fn placeholder_and_reserved_word_errors() {
    use Entry::*;
    check(vec![
        row(Condition, "status = :v", ErrorKind::ReservedWord, "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: status"),
        row(Condition, "a.Size = :v", ErrorKind::ReservedWord, "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: Size"),
        row(Update, "SET total = :n", ErrorKind::ReservedWord, "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: total"),
        row(Projection, "a, name", ErrorKind::ReservedWord, "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: name"),
        row(Condition, "#n = :v", ErrorKind::UndefinedName, "Invalid ConditionExpression: An expression attribute name used in the document path is not defined; attribute name: #n"),
        row(Projection, "a.#zz", ErrorKind::UndefinedName, "Invalid ProjectionExpression: An expression attribute name used in the document path is not defined; attribute name: #zz"),
        row(Condition, "a = :nope", ErrorKind::UndefinedValue, "Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :nope"),
        row(Update, "SET a = :nope", ErrorKind::UndefinedValue, "Invalid UpdateExpression: An expression attribute value used in expression is not defined; attribute value: :nope"),
        // Names are reported before values in updates.
        row(Update, "SET a = :nope, #zz = :v", ErrorKind::UndefinedName, "Invalid UpdateExpression: An expression attribute name used in the document path is not defined; attribute name: #zz"),
        // Reserved words are reported before undefined placeholders.
        row(Condition, "#zz = :v AND status = :v", ErrorKind::ReservedWord, "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: status"),
    ]);
}

#[test]
fn unused_names_then_unused_values_are_reported_by_finish() {
    let n = names(&[("#a", "a"), ("#b", "b")]);
    let v = values(vec![(":v", s("x")), (":w", s("y"))]);
    let mut p = Params::new(Some(&n), Some(&v));
    p.condition("a = :v", ExpressionKind::Condition).unwrap();
    let e = p.finish().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::UnusedNames);
    assert_eq!(
        e.message(),
        "Value provided in ExpressionAttributeNames unused in expressions: keys: {#a, #b}"
    );

    let mut p = Params::new(Some(&n), Some(&v));
    p.condition("#a = :v AND #b = :v", ExpressionKind::Condition).unwrap();
    let e = p.finish().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::UnusedValues);
    assert_eq!(e.message(), "Value provided in ExpressionAttributeValues unused in expressions: keys: {:w}");

    // Several unused keys are listed in the order of a Java HashSet, as DynamoDB does.
    let v2 = values(vec![(":a", s("x")), (":z", s("y")), (":v", s("z"))]);
    let mut p = Params::new(None, Some(&v2));
    p.condition("a = :v", ExpressionKind::Condition).unwrap();
    assert_eq!(
        p.finish().unwrap_err().message(),
        "Value provided in ExpressionAttributeValues unused in expressions: keys: {:z, :a}"
    );

    // Usage is tracked across all expressions of one request.
    let mut p = Params::new(Some(&n), Some(&v));
    p.update("SET #a = :v", &[]).unwrap();
    p.condition("#b <> :w", ExpressionKind::Condition).unwrap();
    p.projection("#a").unwrap();
    assert_eq!(p.finish(), Ok(()));
}

#[test]
fn function_errors() {
    use Entry::*;
    use ErrorKind::*;
    check(vec![
        row(Condition, "foo(a)", UnknownFunction, "Invalid ConditionExpression: Invalid function name; function: foo"),
        row(Condition, "ATTRIBUTE_EXISTS(a)", UnknownFunction, "Invalid ConditionExpression: Invalid function name; function: ATTRIBUTE_EXISTS"),
        row(Condition, "size(a)", MisusedFunction, "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: size"),
        row(Condition, "a = :v AND size(a)", MisusedFunction, "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: size"),
        row(Condition, "attribute_exists(a) = :v", MisusedFunction, "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: attribute_exists"),
        row(Condition, "begins_with(a)", OperandCount, "Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or function: begins_with, number of operands: 1"),
        row(Condition, "size(a, b) = :n", OperandCount, "Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or function: size, number of operands: 2"),
        row(Condition, "a = a", SameOperands, "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: =, first operand: [a]"),
        row(Condition, "contains(#a.b[1], a.b[1])", SameOperands, "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: contains, first operand: [a, b, [1]]"),
        row(Condition, "begins_with(a, :n)", OperandType, "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"),
        row(Condition, "begins_with(size(a), :v)", OperandType, "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"),
        row(Filter, "size(:n) > :n", OperandType, "Invalid FilterExpression: Incorrect operand type for operator or function; operator or function: size, operand type: N"),
        row(Condition, "attribute_exists(:v)", PathRequired, "Invalid ConditionExpression: Operator or function requires a document path; operator or function: attribute_exists"),
        row(Condition, "attribute_type(a, :n)", OperandType, "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: attribute_type, operand type: N"),
        row(Condition, "attribute_type(a, b)", OperandType, "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: attribute_type, operand type: {NS,SS,L,BS,N,M,B,BOOL,NULL,S}"),
        row(Condition, "attribute_type(a, :bad)", InvalidTypeName, "Invalid ConditionExpression: Invalid attribute type name found; type: XX, valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}"),
        row(Condition, "a BETWEEN :n AND :s", BetweenBounds, "Invalid ConditionExpression: The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: AttributeValue: {N:1}, upper bound operand: AttributeValue: {S:a}"),
        row(Key, "pk = :v AND sk BETWEEN :sb AND :s", BetweenBounds, "Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {S:b}, upper bound operand: AttributeValue: {S:a}"),
        row(Condition, "((a = :v))", RedundantParentheses, "Invalid ConditionExpression: The expression has redundant parentheses;"),
        row(Condition, "((a)) = :v", RedundantParentheses, "Invalid ConditionExpression: The expression has redundant parentheses;"),
        row(Condition, "list_append(a, :l) = :l", MisusedFunction, "Invalid ConditionExpression: The function is not allowed in a condition expression; function: list_append"),
        row(Condition, "attribute_exists(attribute_exists(a))", MisusedFunction, "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: attribute_exists"),
        row(Condition, "a < :l", OperandType, "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: <, operand type: L"),
        row(Condition, "a BETWEEN :ss AND :ss", OperandType, "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: BETWEEN, operand type: SS"),
        row(Condition, "a IN (:v, a)", SameOperands, "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: IN, first operand: [a]"),
        row(Condition, "a BETWEEN :v AND #a", SameOperands, "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: BETWEEN, first operand: [a]"),
        // The first pass reports the first problem in written order: reserved words, function
        // names and placement, operand counts; the second pass placeholders and types.
        row(Condition, "size(status) AND foo(a)", MisusedFunction, "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: size"),
        row(Condition, "status = :v AND size(a)", ReservedWord, "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: status"),
        row(Condition, "a = :nope AND foo(a)", UnknownFunction, "Invalid ConditionExpression: Invalid function name; function: foo"),
        row(Condition, "#zz = :v AND begins_with(a)", OperandCount, "Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or function: begins_with, number of operands: 1"),
    ]);
}

#[test]
fn document_paths_nest_at_most_thirty_two_levels() {
    let ok = format!("a{} = :v", ".b".repeat(31));
    let too_deep = format!("a{} = :v", "[0]".repeat(32));
    let names = HashMap::new();
    let values = std_values();
    assert!(run(Entry::Filter, &ok, &names, &values).is_ok());
    let e = run(Entry::Filter, &too_deep, &names, &values).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::PathTooDeep);
    assert_eq!(
        e.message(),
        "Invalid FilterExpression: The document path has too many nesting levels; nesting levels: 33"
    );
}

#[test]
fn list_indexes_above_java_int_max_are_refused() {
    let names = HashMap::new();
    let values = std_values();
    assert!(run(Entry::Filter, "a[2147483647] = :v", &names, &values).is_ok());
    let e = run(Entry::Filter, "a[2147483648] = :v", &names, &values).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::IndexOutOfRange);
    assert_eq!(
        e.message(),
        "Invalid FilterExpression: List index is not within the allowable range; index: [2147483648]"
    );
}

#[test]
fn in_accepts_at_most_one_hundred_operands() {
    let ok = format!("a IN ({})", vec![":v"; 100].join(", "));
    let names = HashMap::new();
    let values = std_values();
    assert!(run(Entry::Filter, &ok, &names, &values).is_ok());
    let too_many = format!("a IN ({})", vec![":v"; 101].join(", "));
    let e = run(Entry::Filter, &too_many, &names, &values).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TooManyOperands);
    assert_eq!(
        e.message(),
        "Invalid FilterExpression: The IN operator is provided with too many operands; number of operands: 101"
    );
}

#[test]
fn update_errors() {
    use Entry::*;
    use ErrorKind::*;
    check(vec![
        row(Update, "SET a = :v SET b = :v", DuplicateSection, r#"Invalid UpdateExpression: The "SET" section can only be used once in an update expression;"#),
        row(Update, "REMOVE a ADD b :n remove c", DuplicateSection, r#"Invalid UpdateExpression: The "REMOVE" section can only be used once in an update expression;"#),
        row(Update, "SET a = :v, a.b = :v", OverlappingPaths, "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a, b]"),
        row(Update, "SET #a = :v REMOVE a", OverlappingPaths, "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]"),
        row(Update, "SET a[0] = :v, a.b = :v", ConflictingPaths, "Invalid UpdateExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, [0]], path two: [a, b]"),
        row(Update, "SET pk = :v", KeyAttributeUpdate, "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key"),
        row(Update, "REMOVE #pk.x", KeyAttributeUpdate, "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key"),
        row(Update, "ADD sk :n", KeyAttributeUpdate, "One or more parameter values were invalid: Cannot update attribute sk. This attribute is part of the key"),
        row(Update, "ADD a :s", OperandType, "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: STRING, typeSet: ALLOWED_FOR_ADD_OPERAND"),
        row(Update, "ADD a :l", OperandType, "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: LIST, typeSet: ALLOWED_FOR_ADD_OPERAND"),
        row(Update, "DELETE a :n", OperandType, "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: NUMBER, typeSet: ALLOWED_FOR_DELETE_OPERAND"),
        row(Update, "SET a = list_append(a, :s)", OperandType, "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: list_append, operand type: S"),
        row(Update, "SET a = b + :s", OperandType, "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: +, operand type: S"),
        row(Update, "SET a = :l - b", OperandType, "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: -, operand type: L"),
        row(Update, "SET a = if_not_exists(:v, b)", PathRequired, "Invalid UpdateExpression: Operator or function requires a document path; operator or function: if_not_exists"),
        row(Update, "SET a = list_append(b)", OperandCount, "Invalid UpdateExpression: Incorrect number of operands for operator or function; operator or function: list_append, number of operands: 1"),
        row(Update, "SET a = foo(b)", UnknownFunction, "Invalid UpdateExpression: Invalid function name; function: foo"),
        row(Update, "SET a = size(b)", MisusedFunction, "Invalid UpdateExpression: The function is not allowed in an update expression; function: size"),
        row(Update, "SET a = attribute_exists(b)", MisusedFunction, "Invalid UpdateExpression: The function is not allowed in an update expression; function: attribute_exists"),
        row(Update, "DELETE a :ss SET b = list_append(:l, :v)", OperandType, "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: list_append, operand type: S"),
        // Placeholders and types are checked from the last action back to the first.
        row(Update, "SET a = :nope1, b = :nope2", UndefinedValue, "Invalid UpdateExpression: An expression attribute value used in expression is not defined; attribute value: :nope2"),
        row(Update, "SET a = :nope1 ADD b :s", OperandType, "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: STRING, typeSet: ALLOWED_FOR_ADD_OPERAND"),
        // Target names and overlaps come before the values.
        row(Update, "SET a = :nope, a = :v", OverlappingPaths, "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]"),
        row(Projection, "a, a.b", OverlappingPaths, "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a, b]"),
        row(Projection, "a[1].b, a.c", ConflictingPaths, "Invalid ProjectionExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, [1], b], path two: [a, c]"),
    ]);
}

#[test]
fn key_condition_errors() {
    use Entry::Key;
    use ErrorKind::KeyCondition;
    check(vec![
        row(Key, "sk = :v", KeyCondition, "Query condition missed key schema element: pk"),
        row(Key, "pk > :v", KeyCondition, "Query key condition not supported"),
        row(Key, "begins_with(pk, :v)", KeyCondition, "Query key condition not supported"),
        row(Key, "pk = :v AND extra = :v", KeyCondition, "Query key condition not supported"),
        row(Key, "pk = :v OR sk = :v", KeyCondition, "Invalid operator used in KeyConditionExpression: OR"),
        row(Key, "pk = :v AND NOT sk = :v", KeyCondition, "Invalid operator used in KeyConditionExpression: NOT"),
        row(Key, "pk IN (:v)", KeyCondition, "Invalid operator used in KeyConditionExpression: IN"),
        row(Key, "pk <> :v", KeyCondition, "Invalid operator used in KeyConditionExpression: <>"),
        row(Key, "pk = :v AND contains(sk, :v)", KeyCondition, "Invalid operator used in KeyConditionExpression: contains"),
        row(Key, "pk = :v AND attribute_exists(sk)", KeyCondition, "Invalid operator used in KeyConditionExpression: attribute_exists"),
        row(Key, "pk = :v AND sk = :v AND sk > :v", KeyCondition, "KeyConditionExpressions must only contain one condition per key"),
        row(Key, "pk = :v AND sk.x = :v", KeyCondition, "KeyConditionExpressions cannot have conditions on nested attributes"),
        row(Key, "pk = :v AND size(sk) = :n", KeyCondition, "KeyConditionExpressions cannot contain nested operations"),
        row(Key, ":v = :s", KeyCondition, "Invalid condition in KeyConditionExpression: No key attribute specified"),
        row(Key, "pk = sk", KeyCondition, "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition"),
        row(Key, "pk = :v AND :v BETWEEN sk AND :s", KeyCondition, "Invalid condition in KeyConditionExpression: BETWEEN operator must have the key attribute as its first operand"),
        row(Key, "pk = :v AND begins_with(:v, sk)", KeyCondition, "Invalid condition in KeyConditionExpression: begins_with operator must have the key attribute as its first operand"),
    ]);
}

#[test]
fn the_longest_paths_a_4kb_expression_allows_are_refused_without_deep_recursion() {
    let deep = format!("a{}", ".a".repeat(2040));
    let names = HashMap::new();
    let values = std_values();
    for (entry, text) in [
        (Entry::Update, format!("SET {deep} = :v")),
        (Entry::Projection, format!("{deep}, b")),
        (Entry::Filter, format!("{deep} = :v")),
    ] {
        assert!(text.len() <= 4096);
        let e = run(entry, &text, &names, &values).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::PathTooDeep, "{}", e.message());
    }
}

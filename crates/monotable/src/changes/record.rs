//! The typed change record a handler receives, whichever way it was read: from the stream by
//! [`ChangeConsumer`](super::ChangeConsumer) or from a Lambda event by
//! [`ChangeDecoder::decode_event`](super::ChangeDecoder::decode_event).

use std::time::SystemTime;

use crate::entity::Item;

/// What happened to the item (the record's `eventName`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChangeKind {
    /// `INSERT`: a new item was added.
    Insert,
    /// `MODIFY`: an existing item was changed (or overwritten).
    Modify,
    /// `REMOVE`: the item was deleted (by a request, or by TTL: see [`ChangeRecord::by_ttl`]).
    Remove,
}

impl ChangeKind {
    /// The `eventName` text: `INSERT`, `MODIFY` or `REMOVE`.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Insert => "INSERT",
            ChangeKind::Modify => "MODIFY",
            ChangeKind::Remove => "REMOVE",
        }
    }

    pub(crate) fn parse(name: &str) -> Option<Self> {
        match name {
            "INSERT" => Some(ChangeKind::Insert),
            "MODIFY" => Some(ChangeKind::Modify),
            "REMOVE" => Some(ChangeKind::Remove),
            _ => None,
        }
    }
}

/// What a stream's records carry (the record's `StreamViewType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ViewType {
    /// Only the key attributes: both images are absent.
    KeysOnly,
    /// The item after the change (absent for `REMOVE`).
    NewImage,
    /// The item before the change (absent for `INSERT`).
    OldImage,
    /// Both images.
    NewAndOldImages,
}

impl ViewType {
    /// The `StreamViewType` text.
    pub fn as_str(self) -> &'static str {
        match self {
            ViewType::KeysOnly => "KEYS_ONLY",
            ViewType::NewImage => "NEW_IMAGE",
            ViewType::OldImage => "OLD_IMAGE",
            ViewType::NewAndOldImages => "NEW_AND_OLD_IMAGES",
        }
    }

    pub(crate) fn parse(name: &str) -> Option<Self> {
        match name {
            "KEYS_ONLY" => Some(ViewType::KeysOnly),
            "NEW_IMAGE" => Some(ViewType::NewImage),
            "OLD_IMAGE" => Some(ViewType::OldImage),
            "NEW_AND_OLD_IMAGES" => Some(ViewType::NewAndOldImages),
            _ => None,
        }
    }
}

/// One image (old or new) of the changed item.
///
/// An item that is not one of the collection's entity types is reported as
/// [`Foreign`](Image::Foreign), and one that names a member type but does not decode as it as
/// [`Undecodable`](Image::Undecodable): neither is dropped, and neither stops a consumer, so a
/// handler decides what they mean.
#[derive(Debug, Clone, PartialEq)]
pub enum Image<C> {
    /// The item, decoded into the collection.
    Entity(C),
    /// An item of no member type: another entity type of the table, one of the library's own
    /// items (a unique-value guard is `_Unique`, an idempotency record `_Idempotency`), or an
    /// item written without the library. `entity_type` is its entity-type attribute, if any.
    Foreign {
        /// The item's entity-type attribute, when it has a string one.
        entity_type: Option<String>,
        /// The stored attributes.
        item: Item,
    },
    /// An item whose entity-type attribute names a member type but which does not decode as
    /// that type (written by other code, or by an older version of the type).
    Undecodable {
        /// The member type it names.
        entity_type: String,
        /// The stored attributes.
        item: Item,
        /// Why it does not decode.
        error: String,
    },
}

impl<C> Image<C> {
    /// The decoded entity, if the item is one.
    pub fn entity(&self) -> Option<&C> {
        match self {
            Image::Entity(c) => Some(c),
            _ => None,
        }
    }

    /// The decoded entity, if the item is one.
    pub fn into_entity(self) -> Option<C> {
        match self {
            Image::Entity(c) => Some(c),
            _ => None,
        }
    }
}

/// One change of one item, typed by the collection `C` (an enum deriving
/// [`Collection`](crate::Collection), or [`Only<T>`](super::Only) for one entity type).
///
/// Which images are present depends on the stream's view type and the event, exactly as in
/// DynamoDB: `KEYS_ONLY` carries none, `NEW_IMAGE` only `new` (absent for `REMOVE`),
/// `OLD_IMAGE` only `old` (absent for `INSERT`), `NEW_AND_OLD_IMAGES` both where they exist.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ChangeRecord<C> {
    /// Insert, modify or remove.
    pub kind: ChangeKind,
    /// The record's unique id (`eventID`).
    pub event_id: String,
    /// The stream the record belongs to (Lambda's `eventSourceARN`).
    pub stream_arn: String,
    /// Its sequence number, unique and increasing within its shard.
    pub sequence_number: String,
    /// The key attributes of the changed item (`Keys`).
    pub keys: Item,
    /// The changed item's entity type: the entity-type attribute of an image or, without
    /// images, the member (or library) type whose key templates the keys match.
    pub entity_type: Option<String>,
    /// Whether the changed item is of one of the collection's entity types.
    pub member: bool,
    /// The item before the change (`OldImage`).
    pub old: Option<Image<C>>,
    /// The item after the change (`NewImage`).
    pub new: Option<Image<C>>,
    /// When the change was made, to DynamoDB's precision (`ApproximateCreationDateTime`),
    /// rounded to the millisecond.
    pub approximate_creation_time: Option<SystemTime>,
    /// The record's size in bytes (`SizeBytes`).
    pub size_bytes: Option<i64>,
    /// What the stream's records carry (`StreamViewType`).
    pub view_type: Option<ViewType>,
    /// Whether DynamoDB's Time to Live process deleted the item: the record's `userIdentity`
    /// is principal `dynamodb.amazonaws.com`, type `Service`.
    pub by_ttl: bool,
}

impl<C> ChangeRecord<C> {
    /// The decoded new image, when present and of a member type.
    pub fn new_entity(&self) -> Option<&C> {
        self.new.as_ref().and_then(Image::entity)
    }

    /// The decoded old image, when present and of a member type.
    pub fn old_entity(&self) -> Option<&C> {
        self.old.as_ref().and_then(Image::entity)
    }
}

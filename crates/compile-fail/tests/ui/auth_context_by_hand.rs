// S12: an AuthContext (and so a scope) only comes from a verifier.
use monotable::{AuthContext, Mint};

fn main() {
    let _mint = Mint { _private: () };
    let _ctx = AuthContext { caller: "me".into(), orgs: Default::default(), caps: Default::default() };
}

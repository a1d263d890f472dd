//! The wire types: what the service says over HTTP and the live feed, on the ground
//! floor (nothing here imports from the actors, the HTTP layer, the CLI or storage).

pub mod worker;

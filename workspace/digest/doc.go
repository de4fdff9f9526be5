// Package digest is the cache under the plan and apply of workspace: what
// a plan saw of a project (the files it read, the state store's token, the
// warehouse's stamps), kept so that the next plan or apply of an unchanged
// project is answered by stat calls and one small read, without loading
// the project or opening the warehouse.
//
// Its interface is small:
//
//   - Lookup answers a plain plan from the environment's no-op digest
//     (LookupLocked, under the environment's lock, answers a plain apply);
//   - Remember writes the no-op digest (and the fingerprints digest) of a
//     plan without changes, from what the plan was made of (Planned: the
//     stamps a Recorder took while the project was read, Watch's view of
//     the store and the warehouse before the plan); Forget removes it;
//   - Settle, after an apply closed the store, lets the digest keep the
//     state file's stamps, so that the next plan reads no token;
//   - LookupPromotion and ApplyPromotion answer the plan and the apply of
//     an environment that only promotes what another one built, from the
//     fingerprints digest.
//
// It decides whether a digest still holds, never what a plan contains: the
// plans it keeps are the full path's (workspace), and any doubt is a miss.
package digest

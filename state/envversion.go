package state

import "context"

// EnvVersioned is implemented by a store that can say cheaply, in one small
// read, whether anything a plan of env reads may have moved: the
// environment's pointers, its promotions, the snapshots (their built marks,
// fingerprint versions, deletions) and the interval ledger. The token is
// persistent (unlike Versioned's, which is per connection) and only
// compared for equality: two equal tokens mean nothing a plan reads was
// written in between, by this process or another machine. A token may move
// when nothing relevant did (a write for another environment); never the
// reverse.
type EnvVersioned interface {
	EnvironmentVersion(ctx context.Context, env string) (string, error)
}

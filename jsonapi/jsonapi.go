// Package jsonapi is the public shape of efmesh's machine-readable output:
// the payload every command prints with --json, one Go type per payload,
// so that a program decodes them with encoding/json instead of guessing.
//
// It owns the shapes only. It imports nothing of efmesh: the front ends
// convert their results into these types (workspace/jsonapi.go for the
// values of the core, cmd/efmesh/cli for the payloads), and a change to a
// core type never changes the output unless the conversion says so.
//
// Field order is output order: encoding/json writes a struct's fields as
// declared. A field tagged omitempty (or omitzero, for a list that is
// present but may be empty) is left out when its doc says so; every other
// field is always present. docs/json.md is generated from this package
// (go generate ./jsonapi) and a test in internal/jsondoc keeps both it and
// the checked-in schema of each Version in step with the types.
package jsonapi

//go:generate go run ../internal/jsondoc

// Version is the apiVersion every payload carries. It changes when a
// payload changes in a way an existing reader could trip on: a field
// removed, renamed, retyped or made optional, a Go type renamed. Adding a
// field, a payload or a type keeps it (readers ignore what they do not
// know); see docs/json.md.
const Version = 1

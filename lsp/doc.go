// Package lsp is efmesh's language server: it speaks the Language Server
// Protocol (go.lsp.dev/protocol over go.lsp.dev/jsonrpc2 v0.10.0) and shows
// the project as the CLI sees it, while the user types.
//
// Layers, each in its own files, pointing one way (down this list):
//
//   - transport: stream.go (framing that survives bad input), server.go
//     (dispatch, panic recovery, cancellation), lifecycle.go (initialize …
//     exit), settings.go (the client's settings: lint rules over
//     efmesh.yaml's); input.go reads the client on a goroutine of its own so the
//     end of the input stops everything even while a handler is busy, and
//     parent.go ends the session when the client's process (initialize's
//     processId) is gone; Serve returns within a second of exit;
//   - bounds: bigfile.go (a model over 1 MB keeps its header but its body
//     is not bound, linted, formatted or tokenized), watch.go (the server
//     polls the project's files itself when the client cannot watch them);
//   - state: documents.go (the editor's buffers), view.go (one project
//     root), snapshot.go and load.go (immutable workspace snapshots of disk
//     plus buffers, reparsing only edited files), checker.go (the one
//     goroutine per project that owns its workbench and runs planner's
//     Analyze/Reanalyze), publish.go (diagnostics, deduplicated, in order),
//     store.go (read-only views of the state store);
//   - features, one file each, called by thin handlers with a snapshot and
//     a byte offset (request.go): hover.go, definition.go, references.go,
//     rename.go, symbols.go, completion.go, codeaction.go, codelens.go,
//     commands.go (render, plan, apply, lineage) with progress.go, and
//     lineage.go; they read SQL bodies lexically through package sqlread
//     (the tolerant reader, shared with lint and format) and resolve.go,
//     and take types and lineage from the planner's analysis;
//   - position.go: the only place byte offsets become LSP (UTF-16)
//     positions.
//
// Loading, checking, fingerprinting, rendering, planning and lineage are
// project's, planner's and connect's, the same functions the CLI calls:
// nothing here re-implements them. The server never opens the warehouse
// except for an explicit efmesh.apply. No package below cmd imports this one.
package lsp

package lsp

import "go.lsp.dev/protocol"

// navigationRequests are the requests of lineage and structure navigation
// (call hierarchy, document highlight, folding), each in its own file,
// added to requestTable.
var navigationRequests = map[string]request{
	protocol.MethodTextDocumentPrepareCallHierarchy: {fn: (*Server).prepareCallHierarchy},
	protocol.MethodCallHierarchyIncomingCalls:       {fn: (*Server).incomingCalls},
	protocol.MethodCallHierarchyOutgoingCalls:       {fn: (*Server).outgoingCalls},
	protocol.MethodTextDocumentDocumentHighlight:    {fn: (*Server).documentHighlight},
	protocol.MethodTextDocumentFoldingRange:         {fn: (*Server).foldingRange},
}

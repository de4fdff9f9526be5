package lsp

import (
	"context"
	"encoding/json"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/analysis"
)

// Version is reported to the client as serverInfo.version; the CLI sets it.
var Version = "dev"

// initializeParams holds the part of InitializeParams the server reads. It
// is decoded on its own rather than as protocol.InitializeParams so that a
// client capability of an unexpected shape cannot fail initialize.
type initializeParams struct {
	// ProcessID is the client's process: the server ends when it is gone.
	ProcessID        int    `json:"processId"`
	RootURI          string `json:"rootUri"`
	RootPath         string `json:"rootPath"`
	WorkspaceFolders []struct {
		URI string `json:"uri"`
	} `json:"workspaceFolders"`
	InitializationOptions struct {
		Environment string `json:"environment"`
		// BindInServer: check a Postgres project's bodies with its
		// server (connect.ServerWorkbench), as plan does, instead of the
		// server-less binder.
		BindInServer bool `json:"bindInServer"`
		// Lint: the editor's lint setting (lintSettings).
		Lint json.RawMessage `json:"lint"`
	} `json:"initializationOptions"`
	Capabilities struct {
		Window struct {
			WorkDoneProgress bool `json:"workDoneProgress"`
		} `json:"window"`
		Workspace struct {
			DidChangeWatchedFiles struct {
				DynamicRegistration bool `json:"dynamicRegistration"`
			} `json:"didChangeWatchedFiles"`
		} `json:"workspace"`
		TextDocument struct {
			PublishDiagnostics struct {
				RelatedInformation bool `json:"relatedInformation"`
			} `json:"publishDiagnostics"`
		} `json:"textDocument"`
	} `json:"capabilities"`
}

// lenient decodes what it can: a field of the wrong type is left at its
// zero value instead of failing the whole message.
func lenient(params json.RawMessage, v any) {
	if err := json.Unmarshal(params, v); err == nil {
		return
	}
	// Decode field by field into a generic map, then retry per key.
	var m map[string]json.RawMessage
	if json.Unmarshal(params, &m) != nil {
		return
	}
	for k, raw := range m {
		one, _ := json.Marshal(map[string]json.RawMessage{k: raw})
		_ = json.Unmarshal(one, v)
	}
}

// Commands the server executes (workspace/executeCommand).
const (
	cmdRender  = "efmesh.render"
	cmdPlan    = "efmesh.plan"
	cmdApply   = "efmesh.apply"
	cmdLineage = "efmesh.lineage"
	cmdTest    = "efmesh.test"
	cmdPreview = "efmesh.preview"
	// The editor's trees.
	cmdModels       = "efmesh.models"
	cmdEnvironments = "efmesh.environments"
)

func (s *Server) initialize(_ context.Context, params json.RawMessage) (any, error) {
	var p initializeParams
	if len(params) > 0 {
		lenient(params, &p)
	}
	var folders []string
	for _, f := range p.WorkspaceFolders {
		if path, err := pathOf(protocol.DocumentURI(f.URI)); err == nil {
			folders = append(folders, path)
		}
	}
	if len(folders) == 0 && p.RootURI != "" {
		if path, err := pathOf(protocol.DocumentURI(p.RootURI)); err == nil {
			folders = append(folders, path)
		}
	}
	if len(folders) == 0 && p.RootPath != "" {
		if path, err := pathOf(uriOf(p.RootPath)); err == nil {
			folders = append(folders, path)
		}
	}
	env := strings.TrimSpace(p.InitializationOptions.Environment)
	s.mu.Lock()
	s.state = stateInitialized
	s.folders = folders
	s.bindInServer = p.InitializationOptions.BindInServer
	s.client = clientInfo{
		workDoneProgress: p.Capabilities.Window.WorkDoneProgress,
		watchRegister:    p.Capabilities.Workspace.DidChangeWatchedFiles.DynamicRegistration,
		related:          p.Capabilities.TextDocument.PublishDiagnostics.RelatedInformation,
		renameFiles:      resourceRename(params),
	}
	if env != "" {
		if err := analysis.ValidateEnv(env); err == nil {
			s.env = env
		}
	}
	badEnv := env != "" && s.env != env
	s.mu.Unlock()
	s.setLintSettings(p.InitializationOptions.Lint)
	s.clientProcess(p.ProcessID)
	if badEnv {
		s.logf(protocol.MessageTypeWarning, "initializationOptions.environment %q is not a valid environment name; using %q", env, "dev")
	}

	return &protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			TextDocumentSync: &protocol.TextDocumentSyncOptions{
				OpenClose: true,
				Change:    protocol.TextDocumentSyncKindIncremental,
				Save:      &protocol.SaveOptions{},
			},
			HoverProvider:      true,
			DefinitionProvider: true,
			ReferencesProvider: true,
			RenameProvider:     &protocol.RenameOptions{PrepareProvider: true},
			CompletionProvider: &protocol.CompletionOptions{
				TriggerCharacters: []string{"(", ".", " ", ",", "@"},
			},
			SignatureHelpProvider: &protocol.SignatureHelpOptions{
				TriggerCharacters: []string{"(", ","},
			},
			DocumentSymbolProvider:  true,
			CallHierarchyProvider:   true,
			WorkspaceSymbolProvider: true,
			CodeActionProvider: &protocol.CodeActionOptions{
				CodeActionKinds: []protocol.CodeActionKind{protocol.QuickFix, protocol.RefactorRewrite, kindRender, kindPlan, kindApply},
			},
			CodeLensProvider:                &protocol.CodeLensOptions{},
			DocumentHighlightProvider:       true,
			FoldingRangeProvider:            true,
			DocumentFormattingProvider:      true,
			DocumentRangeFormattingProvider: true,
			SemanticTokensProvider: map[string]any{
				"legend": semanticLegend(),
				"full":   true,
			},
			ExecuteCommandProvider: &protocol.ExecuteCommandOptions{
				Commands: []string{cmdRender, cmdPlan, cmdApply, cmdLineage, cmdTest, cmdPreview, cmdModels, cmdEnvironments},
			},
			Workspace: &protocol.ServerCapabilitiesWorkspace{
				WorkspaceFolders: &protocol.ServerCapabilitiesWorkspaceFolders{Supported: true, ChangeNotifications: true},
			},
		},
		ServerInfo: &protocol.ServerInfo{Name: "efmesh", Version: Version},
	}, nil
}

// initialized loads the projects of the workspace folders, which starts
// their checks, and asks the client to watch the project files.
func (s *Server) initialized(_ context.Context, _ json.RawMessage) error {
	s.mu.Lock()
	folders := s.folders
	register := s.client.watchRegister
	s.mu.Unlock()
	for _, f := range folders {
		for _, root := range discoverRoots(f) {
			s.ensureView(root)
		}
	}
	if !register {
		// The client cannot watch the files for the server: a git
		// checkout or an edit from the CLI would go unseen.
		s.watchFolders(watchPoll)
	}
	if register {
		s.goSafe("register file watchers", func() {
			params := &protocol.RegistrationParams{Registrations: []protocol.Registration{{
				ID:              "efmesh-watch",
				Method:          protocol.MethodWorkspaceDidChangeWatchedFiles,
				RegisterOptions: protocol.DidChangeWatchedFilesRegistrationOptions{Watchers: watchers()},
			}}}
			if err := s.call(s.ctx, protocol.MethodClientRegisterCapability, params, nil); err != nil {
				s.log.Debug("registering file watchers failed", "err", err)
			}
		})
	}
	return nil
}

func (s *Server) shutdown(_ context.Context, _ json.RawMessage) (any, error) {
	s.mu.Lock()
	s.state = stateShutdown
	s.mu.Unlock()
	return nil, nil
}

func (s *Server) exit(_ context.Context, _ json.RawMessage) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.exited:
	default:
		close(s.exited)
	}
	return nil
}

func (s *Server) didChangeConfiguration(_ context.Context, params json.RawMessage) error {
	var p struct {
		Settings struct {
			Efmesh struct {
				Environment string          `json:"environment"`
				Lint        json.RawMessage `json:"lint"`
			} `json:"efmesh"`
		} `json:"settings"`
	}
	lenient(params, &p)
	changed := false
	if env := p.Settings.Efmesh.Environment; env != "" && analysis.ValidateEnv(env) == nil {
		s.mu.Lock()
		changed = s.env != env
		s.env = env
		s.mu.Unlock()
	}
	// Both setting-set lines are evaluated: a change of both is one reload.
	if s.setLintSettings(p.Settings.Efmesh.Lint) {
		changed = true
	}
	if changed {
		// The environment's vars are in force in every model, and the
		// lint setting in every finding: load the projects again.
		for _, v := range s.allViews() {
			v.reload()
		}
	}
	return nil
}

// environment is the environment lenses and commands default to.
func (s *Server) environment() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.env
}

// watchers are the file watchers registered with the client.
func watchers() []protocol.FileSystemWatcher {
	w := make([]protocol.FileSystemWatcher, len(watchedGlobs))
	for i, g := range watchedGlobs {
		w[i] = protocol.FileSystemWatcher{GlobPattern: g}
	}
	return w
}

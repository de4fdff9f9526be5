package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/workspace"
)

// ErrNoShutdown is returned by Serve when the session ended without a
// shutdown request: the LSP asks for exit code 1 then.
var ErrNoShutdown = errors.New("the client ended the session without shutdown")

// Options tune the server. The zero value is ready to use.
type Options struct {
	// Logger receives the server's own log (stderr for `efmesh lsp`);
	// everything important also goes to the client as window/logMessage.
	Logger *slog.Logger
	// Debounce is how long the checker waits for more edits before it
	// checks; default 10ms (the budget is 20ms).
	Debounce time.Duration
	// Now is the clock of plans (code lenses, the plan and apply
	// commands) and rendered intervals; default analysis.Now, which honours
	// $EFMESH_NOW as the CLI does.
	Now func() time.Time
}

// session states, in order.
const (
	stateNew = iota
	stateInitialized
	stateShutdown
)

// Server is one LSP session. Notifications are handled in order on the
// connection's reading goroutine (they only update documents and snapshots,
// which is cheap); cheap requests are answered there too, so they see every
// edit sent before them; slow requests (code actions and lenses that wait
// for a check, commands) run on their own goroutines.
type Server struct {
	opts Options
	log  *slog.Logger
	conn jsonrpc2.Conn

	ctx    context.Context // canceled when the session ends
	cancel context.CancelFunc
	wg     sync.WaitGroup // async requests and checkers

	// serial orders the notifications the server makes itself (the
	// file poll) with the client's.
	serial sync.Mutex

	mu     sync.Mutex
	state  int
	exited chan struct{}
	// parentGone is closed when the client's process is gone.
	parentGone chan struct{}
	// stopGrace, when set (Serve), bounds the wait for background work
	// once the session ended; zero waits for all of it (tests).
	stopGrace time.Duration
	client    clientInfo
	env       string               // environment of code lenses and commands
	folders   []string             // workspace folders
	docs      map[string]*document // open documents by absolute path
	views     map[string]*view     // projects by root
	inflight  map[jsonrpc2.ID]context.CancelFunc
	// bindInServer: checks bind Postgres bodies with the project's server
	// (initializationOptions.bindInServer).
	bindInServer bool
	// lintRules: the client's lint setting, applied over each project's
	// lint: rules: (settings.go).
	lintRules []project.LintRuleSetting
	// presence is the cached listing of the warehouses' catalogs that
	// lenses, hints and the side bar plan against (workspace.Presence),
	// refreshed after an apply, a plan, a save or presenceTTL.
	presence *workspace.Presence

	// beforeWholeCheck, when set (by tests, before the session starts),
	// runs on a checker's goroutine after the open files were checked and
	// published and before the rest of the project is.
	beforeWholeCheck func(open map[string]openDoc)
	// beforeLint, when set (by tests, before the session starts), runs on
	// a checker's goroutine after a whole-project check published what
	// it found and before the linter runs.
	beforeLint func()
	// beforeLoad, when set (by tests, before the session starts), runs on
	// a view's loading goroutine before it reads the whole project.
	beforeLoad func(root string)
}

// clientInfo is what the server remembers of the client's capabilities.
type clientInfo struct {
	workDoneProgress bool
	watchRegister    bool // dynamic registration of file watchers
	// related: the client shows a diagnostic's relatedInformation; to one
	// that does not, the related places are told in the message.
	related bool
	// renameFiles: workspace edits may rename files (resourceOperations).
	renameFiles bool
}

// Serve runs one session over rwc (stdin/stdout for `efmesh lsp`) until the
// client sends exit, the stream ends or the client's process (initialize's
// processId) is gone. It returns nil after a clean shutdown+exit and
// ErrNoShutdown otherwise; it returns within about stopGrace of the end
// even when background work does not stop in time (the process is
// expected to exit then).
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts Options) error {
	s := newServer(ctx, opts)
	s.stopGrace = stopGrace
	return s.serve(ctx, rwc)
}

// stopGrace bounds how long Serve waits for background work once the
// session ended: the LSP wants the server gone within a second of exit.
const stopGrace = 400 * time.Millisecond

func (s *Server) serve(ctx context.Context, rwc io.ReadWriteCloser) error {
	in := newInput(rwc)
	s.conn = jsonrpc2.NewConn(newStream(pumped{in, rwc}, s.badFrame))
	s.conn.Go(s.ctx, s.handle)
	select {
	case <-s.conn.Done():
	case <-s.exited:
		s.closeConn()
	case <-ctx.Done():
		s.closeConn()
	case <-s.parentGone:
		s.log.Info("the client's process is gone; exiting")
		s.cancel()
		s.closeConn()
	case <-in.ended:
		// The client is gone. The connection's reader first handles what
		// was queued before the end (a shutdown and exit), unless it is
		// stuck in a handler; then every check and request stops.
		select {
		case <-s.conn.Done():
		case <-s.exited:
		case <-time.After(drainWait):
		}
		s.cancel()
		s.closeConn()
	}
	s.stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == stateShutdown {
		return nil
	}
	return ErrNoShutdown
}

// drainWait is how long the messages read before the end of the input
// may take to handle before the session cancels its work.
const drainWait = 200 * time.Millisecond

// graceOr is stopGrace when Serve set one, else d.
func (s *Server) graceOr(d time.Duration) time.Duration {
	if s.stopGrace > 0 {
		return s.stopGrace
	}
	return d
}

// closeConn closes the connection and waits a moment for its reader to
// end; a reader blocked on a stream that cannot be closed (a terminal) or
// in a handler that does not return is left behind, as the process is
// about to end anyway.
func (s *Server) closeConn() {
	s.conn.Close()
	select {
	case <-s.conn.Done():
	case <-time.After(s.graceOr(time.Second)):
	}
}

// clientProcess watches the client's process (initialize's processId)
// and ends the session when it is gone.
func (s *Server) clientProcess(pid int) {
	if pid <= 0 {
		return
	}
	s.goSafe("watch the client's process", func() {
		watchParent(s.ctx, pid, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			select {
			case <-s.parentGone:
			default:
				close(s.parentGone)
			}
		})
	})
}

func newServer(ctx context.Context, opts Options) *Server {
	if opts.Debounce <= 0 {
		opts.Debounce = 10 * time.Millisecond
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = func() time.Time {
			t, err := analysis.Now()
			if err != nil {
				log.Warn(err.Error())
			}
			return t
		}
	}
	s := &Server{
		presence:   workspace.NewPresence(presenceTTL, nil),
		opts:       opts,
		log:        log,
		env:        "dev",
		exited:     make(chan struct{}),
		parentGone: make(chan struct{}),
		docs:       map[string]*document{},
		views:      map[string]*view{},
		inflight:   map[jsonrpc2.ID]context.CancelFunc{},
	}
	s.ctx, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	return s
}

// stop ends every checker and waits for background work, at most
// stopGrace when one is set.
func (s *Server) stop() {
	s.cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.mu.Lock()
		views := make([]*view, 0, len(s.views))
		for _, v := range s.views {
			views = append(views, v)
		}
		s.mu.Unlock()
		for _, v := range views {
			v.stop()
		}
		s.wg.Wait()
	}()
	if s.stopGrace <= 0 {
		<-done
		return
	}
	select {
	case <-done:
	case <-time.After(s.stopGrace):
		s.log.Warn("background work did not stop in time; leaving it to the end of the process")
	}
}

// go runs f in the background of the session, recovering a panic.
func (s *Server) goSafe(what string, f func()) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer s.recoverPanic(what, nil)
		f()
	}()
}

// recoverPanic logs a recovered panic and, for a request, answers it with
// an error. Use as: defer s.recoverPanic(method, reply).
func (s *Server) recoverPanic(what string, reply func(error)) {
	r := recover()
	if r == nil {
		return
	}
	s.logf(protocol.MessageTypeError, "internal error in %s: %v\n%s", what, r, debug.Stack())
	if reply != nil {
		reply(jsonrpc2.Errorf(jsonrpc2.InternalError, "efmesh: internal error in %s: %v", what, r))
	}
}

// recoverPanicValue logs a panic recovered elsewhere (the checker).
func (s *Server) recoverPanicValue(what string, r any) {
	s.logf(protocol.MessageTypeError, "internal error in %s: %v\n%s", what, r, debug.Stack())
}

// badFrame reports input the stream skipped.
func (s *Server) badFrame(err error) {
	s.logf(protocol.MessageTypeWarning, "%v", err)
}

// logf logs to the server log and to the client's log.
func (s *Server) logf(typ protocol.MessageType, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	switch typ {
	case protocol.MessageTypeError:
		s.log.Error(msg)
	case protocol.MessageTypeWarning:
		s.log.Warn(msg)
	default:
		s.log.Info(msg)
	}
	s.notify(protocol.MethodWindowLogMessage, &protocol.LogMessageParams{Type: typ, Message: msg})
}

// notify sends a notification; a failure (the client went away) is logged
// only to the server log.
func (s *Server) notify(method string, params any) {
	if s.conn == nil {
		return
	}
	if err := s.conn.Notify(s.ctx, method, params); err != nil && s.ctx.Err() == nil {
		s.log.Debug("notify failed", "method", method, "err", err)
	}
}

// showMessage shows a message to the user.
func (s *Server) showMessage(typ protocol.MessageType, format string, args ...any) {
	s.notify(protocol.MethodWindowShowMessage, &protocol.ShowMessageParams{Type: typ, Message: fmt.Sprintf(format, args...)})
}

// call sends a request to the client and decodes its answer into result.
func (s *Server) call(ctx context.Context, method string, params, result any) error {
	if s.conn == nil {
		return errors.New("no connection to the client")
	}
	_, err := s.conn.Call(ctx, method, params, result)
	return err
}

type (
	notificationFunc func(s *Server, ctx context.Context, params json.RawMessage) error
	requestFunc      func(s *Server, ctx context.Context, params json.RawMessage) (any, error)
)

// request describes how a request method is served.
type request struct {
	fn    requestFunc
	async bool // runs on its own goroutine: it waits for checks or calls the client
}

// The method tables. Handlers are thin: decode, find the snapshot, call
// one feature function, convert.
var (
	notificationTable map[string]notificationFunc
	requestTable      map[string]request
)

func init() {
	notificationTable = map[string]notificationFunc{
		protocol.MethodInitialized:                        (*Server).initialized,
		protocol.MethodExit:                               (*Server).exit,
		protocol.MethodCancelRequest:                      (*Server).cancelRequest,
		protocol.MethodTextDocumentDidOpen:                (*Server).didOpen,
		protocol.MethodTextDocumentDidChange:              (*Server).didChange,
		protocol.MethodTextDocumentDidClose:               (*Server).didClose,
		protocol.MethodTextDocumentDidSave:                (*Server).didSave,
		protocol.MethodWorkspaceDidChangeWatchedFiles:     (*Server).didChangeWatchedFiles,
		protocol.MethodWorkspaceDidChangeWorkspaceFolders: (*Server).didChangeWorkspaceFolders,
		protocol.MethodWorkspaceDidChangeConfiguration:    (*Server).didChangeConfiguration,
	}
	requestTable = map[string]request{
		protocol.MethodInitialize:                  {fn: (*Server).initialize},
		protocol.MethodShutdown:                    {fn: (*Server).shutdown},
		protocol.MethodTextDocumentHover:           {fn: (*Server).hover},
		protocol.MethodTextDocumentDefinition:      {fn: (*Server).definition},
		protocol.MethodTextDocumentReferences:      {fn: (*Server).references},
		protocol.MethodTextDocumentPrepareRename:   {fn: (*Server).prepareRename},
		protocol.MethodTextDocumentRename:          {fn: (*Server).rename},
		protocol.MethodTextDocumentDocumentSymbol:  {fn: (*Server).documentSymbol},
		protocol.MethodWorkspaceSymbol:             {fn: (*Server).workspaceSymbol},
		protocol.MethodTextDocumentCompletion:      {fn: (*Server).completion},
		protocol.MethodTextDocumentSignatureHelp:   {fn: (*Server).signatureHelp},
		protocol.MethodTextDocumentCodeAction:      {fn: (*Server).codeAction, async: true},
		protocol.MethodTextDocumentCodeLens:        {fn: (*Server).codeLens, async: true},
		protocol.MethodWorkspaceExecuteCommand:     {fn: (*Server).executeCommand, async: true},
		protocol.MethodTextDocumentFormatting:      {fn: (*Server).formatting, async: true},
		protocol.MethodTextDocumentRangeFormatting: {fn: (*Server).rangeFormatting, async: true},
		protocol.MethodSemanticTokensFull:          {fn: (*Server).semanticTokensFull},
	}
	maps.Copy(requestTable, navigationRequests)
}

// handle is the connection's handler. It never returns an error: jsonrpc2
// closes the connection on one, and the server must outlive bad input.
func (s *Server) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	method := req.Method()
	call, isCall := req.(*jsonrpc2.Call)

	if !isCall {
		fn, ok := notificationTable[method]
		if !ok {
			if !strings.HasPrefix(method, "$/") {
				s.log.Debug("unhandled notification", "method", method)
			}
			return nil
		}
		if !s.acceptNotification(method) {
			return nil
		}
		func() {
			s.serial.Lock()
			defer s.serial.Unlock()
			defer s.recoverPanic(method, nil)
			if err := fn(s, ctx, req.Params()); err != nil {
				s.logf(protocol.MessageTypeWarning, "%s: %v", method, err)
			}
		}()
		return nil
	}

	var once sync.Once
	answer := func(result any, err error) {
		once.Do(func() {
			if err != nil {
				var je *jsonrpc2.Error
				if !errors.As(err, &je) {
					err = jsonrpc2.NewError(jsonrpc2.UnknownError, err.Error())
				}
			}
			if rerr := reply(s.ctx, result, err); rerr != nil && s.ctx.Err() == nil {
				s.log.Debug("reply failed", "method", method, "err", rerr)
			}
		})
	}
	r, ok := requestTable[method]
	if !ok {
		answer(nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method not supported: %s", method))
		return nil
	}
	if err := s.acceptRequest(method); err != nil {
		answer(nil, err)
		return nil
	}
	run := func() {
		reqCtx, cancel := context.WithCancel(s.ctx)
		s.mu.Lock()
		s.inflight[call.ID()] = cancel
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			delete(s.inflight, call.ID())
			s.mu.Unlock()
			cancel()
		}()
		defer s.recoverPanic(method, func(err error) { answer(nil, err) })
		result, err := r.fn(s, reqCtx, call.Params())
		if err == nil && reqCtx.Err() != nil && s.ctx.Err() == nil {
			err = jsonrpc2.NewError(requestCancelled, "request cancelled")
		}
		answer(result, err)
	}
	if r.async {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			run()
		}()
	} else {
		run()
	}
	return nil
}

// requestCancelled is the LSP's RequestCancelled error code.
const requestCancelled jsonrpc2.Code = -32800

// acceptRequest enforces the session's lifecycle on requests.
func (s *Server) acceptRequest(method string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.state == stateShutdown:
		return jsonrpc2.NewError(jsonrpc2.InvalidRequest, "the server is shut down")
	case s.state == stateNew && method != protocol.MethodInitialize:
		return jsonrpc2.NewError(jsonrpc2.ServerNotInitialized, "the server is not initialized")
	case s.state != stateNew && method == protocol.MethodInitialize:
		return jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize was already sent")
	}
	return nil
}

// acceptNotification drops notifications the lifecycle does not allow
// (everything but exit before initialize and after shutdown).
func (s *Server) acceptNotification(method string) bool {
	if method == protocol.MethodExit {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state == stateInitialized
}

func (s *Server) cancelRequest(_ context.Context, params json.RawMessage) error {
	var p struct {
		ID jsonrpc2.ID `json:"id"`
	}
	if err := decode(params, &p); err != nil {
		return err
	}
	s.mu.Lock()
	cancel := s.inflight[p.ID]
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return nil
}

// decode unmarshals params; a failure is an InvalidParams error.
func decode(params json.RawMessage, v any) error {
	if len(params) == 0 || string(params) == "null" {
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, "missing params")
	}
	if err := json.Unmarshal(params, v); err != nil {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %v", err)
	}
	return nil
}

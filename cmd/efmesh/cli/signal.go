package cli

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// InterruptedError is the cause of a context cancelled by a signal.
type InterruptedError struct{ Signal os.Signal }

func (e *InterruptedError) Error() string { return "interrupted by " + signalName(e.Signal) }

func signalName(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// WithSignals returns a context that the first SIGINT or SIGTERM cancels,
// with an *InterruptedError as its cause: the command in flight stops at
// its next statement, rolls back the batch it was writing, journals the
// interruption and releases its lock, and Run returns ExitInterrupted. A
// second signal ends the process at once (the default action is restored
// after the first). stop releases the signals.
func WithSignals(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case sig := <-ch:
			signal.Stop(ch)
			cancel(&InterruptedError{Signal: sig})
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		cancel(nil)
	}
}

// interrupted returns the signal that cancelled ctx, if one did.
func interrupted(ctx context.Context) (*InterruptedError, bool) {
	var ie *InterruptedError
	ok := errors.As(context.Cause(ctx), &ie)
	return ie, ok
}

// Package mlx is the mlx pack: mlx.load starts a local model server for a
// configured model on a port of 8100–8139, and mlx.unload stops the one it
// started there, as the tool contracts of seed 003 define them (failures
// invalid_port 400, model_not_found 404, port_busy 409, launch_failed 500,
// not_listening 404).
//
// The server is started from a command template (Config.Command, default
// `mlx_lm.server --model {model} --port {port}`), each word one argument,
// never through a shell, in a process group of its own. Load returns once
// the server accepts connections on the port, or fails with the tail of
// its stderr when it exits or does not answer within StartTimeout.
//
// Started servers are recorded in a state file (written atomically under a
// file lock), so that a restarted host still unloads them: unload checks
// that the process on record is the one started (its command line) before
// it stops it — SIGTERM to its group, SIGKILL after StopTimeout — and
// never stops a server it did not start: that is a permission_denied
// failure, and the server is left running. Linux only (process groups and
// /proc); elsewhere New returns an error.
//
// Over MCP a failure's code is in the result's _meta
// (mcpserver.MetaErrorType); over HTTP it is the error_type of the body,
// with the contract's status.
package mlx

import (
	"log/slog"
	"time"

	"github.com/toolpack-go/toolpack/result"
)

// PackName is the pack's name.
const PackName = "mlx"

// The contract's error types.
const (
	ErrInvalidPort   result.ErrorType = "invalid_port"
	ErrModelNotFound result.ErrorType = "model_not_found"
	ErrPortBusy      result.ErrorType = "port_busy"
	ErrLaunchFailed  result.ErrorType = "launch_failed"
	ErrNotListening  result.ErrorType = "not_listening"
)

// Defaults of Config.
const (
	DefaultStartTimeout = 60 * time.Second
	DefaultStopTimeout  = 5 * time.Second
)

// DefaultCommand is the command template: {model} and {port} are
// replaced in each word.
var DefaultCommand = []string{"mlx_lm.server", "--model", "{model}", "--port", "{port}"}

// Config configures the pack (host configuration key mlx:).
type Config struct {
	// Command is the command template, one word per argument; nil means
	// DefaultCommand. The first word is the program.
	Command []string
	// Models are the models mlx.load may start. Required.
	Models []string
	// StartTimeout bounds the wait for a started server to accept
	// connections; 0 means DefaultStartTimeout.
	StartTimeout time.Duration
	// StopTimeout is how long unload waits after SIGTERM before it sends
	// SIGKILL; 0 means DefaultStopTimeout.
	StopTimeout time.Duration
	// StateFile records the servers started; "" means mlx-servers.json in
	// the user cache directory's toolpack folder.
	StateFile string
	// Logger logs starts and stops; nil means slog.Default.
	Logger *slog.Logger
}

// LoadArgs are mlx.load's arguments.
type LoadArgs struct {
	Model string `json:"model" validate:"required"`
	Port  int    `json:"port" validate:"required,gte=8100,lte=8139"`
}

// LoadOutput is mlx.load's answer.
type LoadOutput struct {
	OK      bool   `json:"ok"`
	Message string `json:"message"`
	Port    int    `json:"port"`
	Model   string `json:"model"`
}

// UnloadArgs are mlx.unload's arguments.
type UnloadArgs struct {
	Port int `json:"port" validate:"required,gte=8100,lte=8139"`
}

// UnloadOutput is mlx.unload's answer.
type UnloadOutput struct {
	OK      bool   `json:"ok"`
	Message string `json:"message"`
	Port    int    `json:"port"`
}

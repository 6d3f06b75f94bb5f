//go:build linux

package mlx

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gofrs/flock"

	"github.com/toolpack-go/toolpack/internal/regfile"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// stderrTail caps the stderr a launch failure quotes.
const stderrTail = 2 << 10

type pack struct {
	cfg Config
	log *slog.Logger
	mu  sync.Mutex // one load or unload at a time in this process
}

// New returns the pack. A bad Config is an error naming the field.
func New(cfg Config) (*registry.Pack, error) {
	if cfg.Command == nil {
		cfg.Command = DefaultCommand
	}
	switch {
	case len(cfg.Command) == 0 || strings.TrimSpace(cfg.Command[0]) == "":
		return nil, errors.New("mlx: Config.Command: expected a program and its arguments, got none")
	case len(cfg.Models) == 0:
		return nil, errors.New("mlx: Config.Models: expected the models mlx.load may start, got none")
	case cfg.StartTimeout < 0:
		return nil, fmt.Errorf("mlx: Config.StartTimeout: expected a positive duration, got %s", cfg.StartTimeout)
	case cfg.StopTimeout < 0:
		return nil, fmt.Errorf("mlx: Config.StopTimeout: expected a positive duration, got %s", cfg.StopTimeout)
	}
	if cfg.StartTimeout == 0 {
		cfg.StartTimeout = DefaultStartTimeout
	}
	if cfg.StopTimeout == 0 {
		cfg.StopTimeout = DefaultStopTimeout
	}
	if cfg.StateFile == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("mlx: Config.StateFile: no user cache directory for the default: %w", err)
		}
		cfg.StateFile = filepath.Join(dir, "toolpack", "mlx-servers.json")
	}
	p := &pack{cfg: cfg, log: cfg.Logger}
	if p.log == nil {
		p.log = slog.Default()
	}
	portErr := registry.ErrorSpec{Type: ErrInvalidPort, Status: http.StatusBadRequest, Description: "the port is outside 8100–8139"}
	pk := &registry.Pack{Name: PackName, Description: "Starts and stops local model servers."}
	if err := registry.AddFunc(pk, "mlx.load", p.load, registry.ToolOptions{
		Title:       "Load a model",
		Description: "Starts a local model server for a configured model on a port of 8100–8139 and waits until it answers.",
		Annotations: registry.Annotations{ReadOnly: new(false), Destructive: new(false), Idempotent: new(false), OpenWorld: new(false)},
		Prefix:      new(""),
		Errors: []registry.ErrorSpec{portErr,
			{Type: ErrModelNotFound, Status: http.StatusNotFound, Description: "the model is not among the configured models"},
			{Type: ErrPortBusy, Status: http.StatusConflict, Description: "something already listens on the port"},
			{Type: ErrLaunchFailed, Status: http.StatusInternalServerError, Description: "the server exited or did not answer in time"}},
		FieldErrorTypes: map[string]result.ErrorType{"port": ErrInvalidPort},
	}); err != nil {
		return nil, err
	}
	if err := registry.AddFunc(pk, "mlx.unload", p.unload, registry.ToolOptions{
		Title:       "Unload a model",
		Description: "Stops the model server this pack started on a port of 8100–8139.",
		Annotations: registry.Annotations{ReadOnly: new(false), Destructive: new(true), Idempotent: new(true), OpenWorld: new(false)},
		Prefix:      new(""),
		Errors: []registry.ErrorSpec{portErr,
			{Type: ErrNotListening, Status: http.StatusNotFound, Description: "nothing listens on the port"}},
		FieldErrorTypes: map[string]result.ErrorType{"port": ErrInvalidPort},
	}); err != nil {
		return nil, err
	}
	return pk, nil
}

// listening reports whether something accepts connections on the port.
func listening(ctx context.Context, port int) bool {
	d := net.Dialer{Timeout: 300 * time.Millisecond}
	c, err := d.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	_ = c.Close()
	return true
}

// tail keeps the last bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > stderrTail {
		t.buf = t.buf[len(t.buf)-stderrTail:]
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(strings.ToValidUTF8(string(t.buf), "�"))
}

func (p *pack) load(ctx context.Context, a LoadArgs) (result.Result[LoadOutput], error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !slices.Contains(p.cfg.Models, a.Model) {
		return result.Failuref[LoadOutput](ErrModelNotFound, "model %q is not among the configured models (%s)", a.Model, strings.Join(p.cfg.Models, ", ")), nil
	}
	if listening(ctx, a.Port) {
		return result.Failuref[LoadOutput](ErrPortBusy, "something already listens on port %d; unload it first or pick another port", a.Port), nil
	}
	argv := make([]string, len(p.cfg.Command))
	for i, w := range p.cfg.Command {
		argv[i] = strings.NewReplacer("{model}", a.Model, "{port}", strconv.Itoa(a.Port)).Replace(w)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	errTail := &tail{}
	cmd.Stderr = errTail
	if err := cmd.Start(); err != nil {
		return result.Failuref[LoadOutput](ErrLaunchFailed, "the server could not be started: %v", err), nil
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }() // reaps the child whenever it ends
	deadline := time.NewTimer(p.cfg.StartTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	fail := func(msg string) (result.Result[LoadOutput], error) {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if t := errTail.String(); t != "" {
			msg += "; its stderr ends with: " + t
		}
		return result.Failure[LoadOutput](msg, ErrLaunchFailed), nil
	}
	for {
		select {
		case <-exited:
			return fail(fmt.Sprintf("the server exited before it answered on port %d", a.Port))
		case <-deadline.C:
			return fail(fmt.Sprintf("the server did not answer on port %d within %s", a.Port, p.cfg.StartTimeout))
		case <-ctx.Done():
			_, _ = fail("")
			return result.Result[LoadOutput]{}, ctx.Err()
		case <-tick.C:
			if !listening(ctx, a.Port) {
				continue
			}
			rec := record{PID: cmd.Process.Pid, Model: a.Model, Cmdline: argv, Started: time.Now().UTC()}
			if err := p.updateState(func(s state) { s[strconv.Itoa(a.Port)] = rec }); err != nil {
				p.log.Warn("mlx: recording the started server failed; unload will not find it after a restart", "port", a.Port, "err", err)
			}
			p.log.Info("mlx: server started", "model", a.Model, "port", a.Port, "pid", rec.PID)
			return result.Ok(LoadOutput{OK: true, Message: fmt.Sprintf("model %s is served on port %d", a.Model, a.Port), Port: a.Port, Model: a.Model}), nil
		}
	}
}

func (p *pack) unload(ctx context.Context, a UnloadArgs) (result.Result[UnloadOutput], error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	key := strconv.Itoa(a.Port)
	st, err := p.readState()
	if err != nil {
		return result.Result[UnloadOutput]{}, err
	}
	rec, known := st[key]
	if !listening(ctx, a.Port) {
		if known {
			_ = p.updateState(func(s state) { delete(s, key) })
		}
		return result.Failuref[UnloadOutput](ErrNotListening, "nothing listens on port %d", a.Port), nil
	}
	if !known || !rec.alive() {
		return result.Failuref[UnloadOutput](result.PermissionDenied, "the server on port %d was not started by this pack; it is left running", a.Port), nil
	}
	_ = syscall.Kill(-rec.PID, syscall.SIGTERM)
	stopped := waitFor(ctx, p.cfg.StopTimeout, func() bool { return !rec.alive() && !listening(ctx, a.Port) })
	if !stopped {
		_ = syscall.Kill(-rec.PID, syscall.SIGKILL)
		// As after SIGTERM: the process gone and the port closed, so that
		// a port merely slow to answer is not taken for a closed one.
		// SIGKILL cannot be refused, so the wait ends as soon as the kernel
		// has torn the process down; on a loaded machine that can take
		// longer than a short StopTimeout, hence the floor.
		waitFor(ctx, max(p.cfg.StopTimeout, killGrace), func() bool { return !rec.alive() && !listening(ctx, a.Port) })
	}
	if err := p.updateState(func(s state) { delete(s, key) }); err != nil {
		p.log.Warn("mlx: updating the state file failed", "port", a.Port, "err", err)
	}
	p.log.Info("mlx: server stopped", "model", rec.Model, "port", a.Port, "pid", rec.PID, "forced", !stopped)
	how := "stopped"
	if !stopped {
		how = "killed (it did not stop within " + p.cfg.StopTimeout.String() + ")"
	}
	return result.Ok(UnloadOutput{OK: true, Message: fmt.Sprintf("the server of model %s on port %d was %s", rec.Model, a.Port, how), Port: a.Port}), nil
}

// waitFor polls cond until it holds, d passes or ctx ends.
func waitFor(ctx context.Context, d time.Duration, cond func() bool) bool {
	end := time.Now().Add(d)
	for time.Now().Before(end) && ctx.Err() == nil {
		if cond() {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return cond()
}

// record is one started server in the state file.
type record struct {
	PID     int       `json:"pid"`
	Model   string    `json:"model"`
	Cmdline []string  `json:"cmdline"`
	Started time.Time `json:"started"`
}

// alive reports whether the recorded process still runs with the command
// line it was started with (a reused pid is someone else's).
func (r record) alive() bool {
	if r.PID <= 0 {
		return false
	}
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(r.PID), "cmdline"))
	if err != nil {
		return false
	}
	got := strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
	if len(got) != len(r.Cmdline) || len(got) == 0 {
		return false
	}
	for i := range got {
		if i == 0 {
			if filepath.Base(got[0]) != filepath.Base(r.Cmdline[0]) {
				return false
			}
			continue
		}
		if got[i] != r.Cmdline[i] {
			return false
		}
	}
	return true
}

// state is the state file's content: port → record.
type state map[string]record

// maxStateBytes caps the state file read.
const maxStateBytes = 1 << 20

// lockState takes the state file's lock (the file + ".lock"). A lock file
// that is not a regular file (a FIFO, whose open would wait for a writer
// for good) is refused at once (internal/regfile).
func (p *pack) lockState() (*flock.Flock, error) {
	lock, err := regfile.Lock(context.Background(), p.cfg.StateFile+".lock", 0o600, false, 0)
	if err != nil {
		return nil, fmt.Errorf("mlx: state file lock: %w", err)
	}
	return lock, nil
}

func (p *pack) readState() (state, error) {
	if err := os.MkdirAll(filepath.Dir(p.cfg.StateFile), 0o700); err != nil {
		return nil, fmt.Errorf("mlx: state file: %w", err)
	}
	lock, err := p.lockState()
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	return p.readUnlocked()
}

// readUnlocked reads the state file, of at most maxStateBytes; one that
// is not a regular file is an error naming it, without waiting.
func (p *pack) readUnlocked() (state, error) {
	b, err := regfile.ReadFile(p.cfg.StateFile, maxStateBytes)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return state{}, nil
	case errors.Is(err, regfile.ErrTooLarge):
		return nil, fmt.Errorf("mlx: state file %s: larger than %d bytes; expected at most that", p.cfg.StateFile, maxStateBytes)
	case err != nil:
		return nil, fmt.Errorf("mlx: state file: %w", err)
	}
	return parseState(b)
}

// parseState reads a state file's content; a malformed one is an error
// naming what was expected.
func parseState(b []byte) (state, error) {
	s := state{}
	if len(bytes.TrimSpace(b)) == 0 {
		return s, nil
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("mlx: state file: expected a JSON object of port → {pid, model, cmdline, started}: %w", err)
	}
	for k, r := range s {
		if n, err := strconv.Atoi(k); err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != k || r.PID <= 0 {
			return nil, fmt.Errorf("mlx: state file: entry %q: expected a port and a positive pid", k)
		}
	}
	return s, nil
}

// updateState changes the state file under its lock, writing it
// atomically (a temporary file renamed over it).
func (p *pack) updateState(change func(state)) error {
	if err := os.MkdirAll(filepath.Dir(p.cfg.StateFile), 0o700); err != nil {
		return err
	}
	lock, err := p.lockState()
	if err != nil {
		return err
	}
	defer lock.Unlock()
	s, err := p.readUnlocked()
	if err != nil {
		return err
	}
	change(s)
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p.cfg.StateFile), ".mlx-state-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), p.cfg.StateFile)
}

// killGrace is the least unload waits, after SIGKILL, for the process to
// be gone and its port closed.
const killGrace = 5 * time.Second

// Package pgtest gives the PostgreSQL stores' tests their database: the
// DSN from the environment (.ci/run starts PostgreSQL 15 and sets it; the
// tests skip without it), a fresh schema per test, dropped when the test
// ends, and an Outage relay that takes the database away and brings it
// back.
package pgtest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvDSN names the environment variable holding the test database's DSN.
const EnvDSN = "TOOLPACK_TEST_PG_DSN"

// DSN returns the test database's DSN, or skips t saying why.
func DSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(EnvDSN)
	if dsn == "" {
		t.Skipf("%s is not set: no PostgreSQL to test against (.ci/run starts one)", EnvDSN)
	}
	return dsn
}

// FreshSchema is a new, empty schema name, dropped with everything in it
// when t ends.
func FreshSchema(t testing.TB, dsn string) string {
	t.Helper()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	schema := "t_" + hex.EncodeToString(b)
	t.Cleanup(func() { DropSchema(dsn, schema) })
	return schema
}

// DropSchema removes schema and everything in it, ignoring failures.
func DropSchema(dsn, schema string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return
	}
	defer conn.Close(ctx)
	_, _ = conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
}

// StartWriter runs this test binary again as a writer process: only the
// test named test, with env added to its environment, and waits until the
// writer prints a line holding ready (the point the test kills it from).
// The caller kills the process and Waits for it.
func StartWriter(t testing.TB, test, env, ready string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.v")
	cmd.Env = append(os.Environ(), env)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		if strings.Contains(lines.Text(), ready) {
			return cmd
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	t.Fatalf("the writer %s ended without printing %q", test, ready)
	return nil
}

// Outage is a TCP relay in front of the test database, so that a test can
// take the database away from a store and bring it back: Down closes the
// listener and every relayed connection (new connections are refused, as
// by a stopped server); Up listens again on the same address. Silence
// takes it away without a word instead, as a network that drops packets
// does: connections stay open and nothing reaches either side.
type Outage struct {
	t      testing.TB
	target string // host:port of the database
	addr   string // the relay's address

	// cutCommit, when set, makes the next COMMIT relayed to the database
	// lose its answer (CutNextCommit); loseCommit, set with it, loses the
	// COMMIT itself (LoseNextCommit).
	cutCommit, loseCommit atomic.Bool
	// stallCommit, set with cutCommit, keeps the connection open after the
	// COMMIT and drops its answer (StallNextCommit).
	stallCommit atomic.Bool
	// awayFor, set with cutCommit, keeps new connections refused for that
	// long after the cut (awayUntil, Unix nanoseconds).
	awayFor, awayUntil atomic.Int64

	mu     sync.Mutex
	ln     net.Listener
	conns  map[net.Conn]*atomic.Bool // each relayed connection's "silenced"
	silent bool                      // new connections are silenced too
}

// NewOutage starts a relay to the database of dsn and returns it with
// the DSN that goes through it. The relay stops when t ends.
func NewOutage(t testing.TB, dsn string) (*Outage, string) {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil || u.Host == "" {
		t.Fatalf("pgtest: NewOutage needs a URL DSN with a host (postgres://user:pw@host:port/db)")
	}
	target := u.Host
	if u.Port() == "" {
		target = net.JoinHostPort(u.Hostname(), "5432")
	}
	o := &Outage{t: t, target: target, conns: map[net.Conn]*atomic.Bool{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	o.addr = ln.Addr().String()
	o.serve(ln)
	t.Cleanup(o.Down)
	u.Host = o.addr
	return o, u.String()
}

// Down takes the database away: the relay stops listening and closes
// every connection it relays.
func (o *Outage) Down() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ln != nil {
		_ = o.ln.Close()
		o.ln = nil
	}
	for c := range o.conns {
		_ = c.Close()
	}
	clear(o.conns)
}

// Silence drops every byte of the connections relayed now, both ways,
// for good, and every byte of connections made until Speak, without
// closing any: a caller waits for an answer that never comes, as when a
// failover moves the database's address or a NAT forgets the connection.
func (o *Outage) Silence() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.silent = true
	for _, s := range o.conns {
		s.Store(true)
	}
}

// CutNextCommit makes the next COMMIT sent through the relay reach the
// database, which runs it to its end, while its answer is dropped and the
// connection closed towards the client: the client cannot know whether
// its transaction committed.
func (o *Outage) CutNextCommit() {
	o.loseCommit.Store(false)
	o.stallCommit.Store(false)
	o.cutCommit.Store(true)
}

// StallNextCommit makes the next COMMIT sent through the relay reach the
// database, which runs it to its end, while its answer is dropped and the
// connection stays open: the client waits for an answer that never comes
// until its own deadline, and cannot know whether its transaction
// committed (a proxy or a NAT that forgot the connection).
func (o *Outage) StallNextCommit() {
	o.loseCommit.Store(false)
	o.stallCommit.Store(true)
	o.cutCommit.Store(true)
}

// LoseNextCommit makes the next COMMIT sent through the relay never reach
// the database: its connection is closed both ways instead, so the
// database rolls the transaction back while the client, as with
// CutNextCommit, cannot know what became of it.
func (o *Outage) LoseNextCommit() {
	o.stallCommit.Store(false)
	o.loseCommit.Store(true)
	o.cutCommit.Store(true)
}

// CutNextCommitAndStayAway is CutNextCommit, and then the database stays
// away for d: connections made meanwhile are closed at once, as when a
// restart or a failover follows the cut.
func (o *Outage) CutNextCommitAndStayAway(d time.Duration) {
	o.awayFor.Store(int64(d))
	o.CutNextCommit()
}

// Speak relays new connections again (the silenced ones stay silent).
func (o *Outage) Speak() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.silent = false
}

// Up brings the database back on the relay's address.
func (o *Outage) Up() {
	o.t.Helper()
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		o.t.Fatalf("pgtest: listening again on %s: %v", o.addr, err)
	}
	o.serve(ln)
}

func (o *Outage) serve(ln net.Listener) {
	o.mu.Lock()
	o.ln = ln
	o.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go o.relay(c)
		}
	}()
}

func (o *Outage) relay(c net.Conn) {
	if time.Now().UnixNano() < o.awayUntil.Load() {
		_ = c.Close()
		return
	}
	d, err := net.DialTimeout("tcp", o.target, 5*time.Second)
	if err != nil {
		_ = c.Close()
		return
	}
	o.mu.Lock()
	if o.ln == nil { // down meanwhile
		o.mu.Unlock()
		_ = c.Close()
		_ = d.Close()
		return
	}
	silenced := new(atomic.Bool)
	silenced.Store(o.silent)
	o.conns[c], o.conns[d] = silenced, silenced
	o.mu.Unlock()
	var wg sync.WaitGroup
	wg.Add(2)
	cut := new(atomic.Bool)   // a COMMIT was cut on this connection
	stall := new(atomic.Bool) // … and its connection stays open (StallNextCommit)
	pipe := func(dst, src net.Conn) {
		defer wg.Done()
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			if n > 0 && cut.Load() && src == d && !stall.Load() {
				break // the database answered the cut COMMIT: it ran
			}
			// A COMMIT to the database, armed: nothing more reaches the
			// client (silenced before the COMMIT is passed on, so that its
			// answer cannot slip through), and the client's connection is
			// closed only once the database has answered (above), so that
			// the COMMIT has run to its end. Closing it earlier would let
			// the client's driver cancel the COMMIT still running (pgx
			// sends a cancel request when its connection breaks): a
			// different fault, whose outcome is a race.
			if n > 0 && dst == d && !silenced.Load() && bytes.Contains(bytes.ToLower(buf[:n]), []byte("commit")) && o.cutCommit.CompareAndSwap(true, false) {
				cut.Store(true)
				silenced.Store(true)
				if away := o.awayFor.Swap(0); away > 0 {
					o.awayUntil.Store(time.Now().UnixNano() + away)
				}
				if o.loseCommit.Load() {
					_ = c.Close()
					_ = d.Close()
					return
				}
				if o.stallCommit.Swap(false) {
					stall.Store(true) // answers dropped (silenced), nothing closed
					_, _ = d.Write(buf[:n])
					return
				}
				_ = d.SetReadDeadline(time.Now().Add(5 * time.Second))
				_, _ = d.Write(buf[:n])
				return
			}
			if n > 0 && !silenced.Load() {
				if _, werr := dst.Write(buf[:n]); werr != nil {
					break
				}
			}
			if err != nil {
				break
			}
		}
		_ = dst.Close()
		_ = src.Close()
	}
	go pipe(d, c)
	go pipe(c, d)
	wg.Wait()
	o.mu.Lock()
	delete(o.conns, c)
	delete(o.conns, d)
	o.mu.Unlock()
}

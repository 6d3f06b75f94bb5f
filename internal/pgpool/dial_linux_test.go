package pgpool

import (
	"context"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/toolpack-go/toolpack/internal/pgpool/pgtest"
)

// sockopts reads the keep-alive and user-timeout settings of a TCP
// connection.
func sockopts(t *testing.T, c net.Conn) map[string]int {
	t.Helper()
	sc, ok := c.(syscall.Conn)
	require.True(t, ok, "%T is not a socket", c)
	raw, err := sc.SyscallConn()
	require.NoError(t, err)
	out := map[string]int{}
	require.NoError(t, raw.Control(func(fd uintptr) {
		for name, opt := range map[string][2]int{
			"keepalive": {unix.SOL_SOCKET, unix.SO_KEEPALIVE}, "idle": {unix.IPPROTO_TCP, unix.TCP_KEEPIDLE},
			"interval": {unix.IPPROTO_TCP, unix.TCP_KEEPINTVL}, "count": {unix.IPPROTO_TCP, unix.TCP_KEEPCNT},
			"user_timeout_ms": {unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT},
		} {
			v, err := unix.GetsockoptInt(int(fd), opt[0], opt[1])
			require.NoError(t, err, name)
			out[name] = v
		}
	}))
	return out
}

var wantSockopts = map[string]int{"keepalive": 1, "idle": int(keepAliveIdle / time.Second), "interval": int(keepAliveInterval / time.Second),
	"count": keepAliveCount, "user_timeout_ms": int(userTimeout.Milliseconds())}

// The pools' connections are probed when idle and give up on unacknowledged
// bytes after userTimeout, so a network that vanished without a word is
// noticed in half a minute, idle or mid-statement, not after the kernel's
// defaults (minutes to a quarter of an hour).
func TestDial_DeadNetworkNoticed(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	c, err := dial(context.Background(), "tcp", ln.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	got := sockopts(t, c)
	assert.Equal(t, wantSockopts, got)
	// Linux drops an idle connection when its probes have gone unanswered
	// for the user timeout (it then ignores the probe count), so the two
	// settings must give the same deadline, or the idle case waits for the
	// longer one.
	assert.Equal(t, (got["idle"]+got["count"]*got["interval"])*1000, got["user_timeout_ms"],
		"the user timeout is not the keep-alive probes' total")

	// And a pool's connections are made so.
	dsn := pgtest.DSN(t)
	pool, err := Open(context.Background(), "dialtest", Config{DSN: dsn, MaxConns: 1})
	require.NoError(t, err)
	defer pool.Close()
	conn, err := pool.Acquire(context.Background())
	require.NoError(t, err)
	defer conn.Release()
	if _, isTCP := conn.Conn().PgConn().Conn().LocalAddr().(*net.TCPAddr); !isTCP {
		t.Skip("the test database is reached over a Unix socket")
	}
	assert.Equal(t, wantSockopts, sockopts(t, conn.Conn().PgConn().Conn()))
}

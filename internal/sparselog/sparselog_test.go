package sparselog_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/sparselog"
)

// Ten failures in a row are logged at the 1st, 2nd, 4th and 8th, each
// with its count; the success after them once, with the count; a success
// after successes not at all; and the count starts again after a success.
func TestFailures_LoggedSparinglyAndOnRecovery(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	var f sparselog.Failures
	ctx := context.Background()
	down := errors.New("database away")
	for i := 1; i <= 10; i++ {
		assert.Equal(t, i, f.Record(ctx, log, down, "writing failed", "writing again", slog.Int("pending", 3)))
	}
	assert.Equal(t, 0, f.Record(ctx, log, nil, "writing failed", "writing again"))
	assert.Equal(t, 0, f.Record(ctx, log, nil, "writing failed", "writing again"))
	assert.Equal(t, 1, f.Record(ctx, log, down, "writing failed", "writing again"))

	var got []string
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var rec struct {
			Level, Msg, Err string
			Tries           int  `json:"failed_tries"`
			Pending         *int `json:"pending"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &rec))
		got = append(got, fmt.Sprint(rec.Level, " ", rec.Msg, " ", rec.Err, " ", rec.Tries))
		if rec.Level == "WARN" && rec.Tries > 1 {
			require.NotNil(t, rec.Pending, "the extra attributes go with every failure logged")
		}
	}
	assert.Equal(t, []string{
		"WARN writing failed database away 1", "WARN writing failed database away 2",
		"WARN writing failed database away 4", "WARN writing failed database away 8",
		"INFO writing again  10",
		"WARN writing failed database away 1",
	}, got)
}

func ExampleFailures() {
	log := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
	var f sparselog.Failures
	for _, err := range []error{errors.New("away"), errors.New("away"), errors.New("away"), nil} {
		f.Record(context.Background(), log, err, "flush failed", "flushing again")
	}
	// Output:
	// level=WARN msg="flush failed" err=away failed_tries=1
	// level=WARN msg="flush failed" err=away failed_tries=2
	// level=INFO msg="flushing again" failed_tries=3
}

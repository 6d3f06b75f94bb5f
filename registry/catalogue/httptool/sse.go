package httptool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	sse "github.com/tmaxmax/go-sse"

	"github.com/toolpack-go/toolpack/netguard"
	"github.com/toolpack-go/toolpack/registry"
)

// MaxEventBytes caps one server-sent event of a "sse" tool (the whole
// stream is capped by the tool's maxResponseBytes).
const MaxEventBytes = 1 << 20

// MaxProgressMessageRunes caps the text of one progress report sent for
// an event.
const MaxProgressMessageRunes = 1000

// readSSE reads an event stream until it ends, reporting each event as
// progress (its data as the message, the count as the progress) so that
// an MCP client that asked for progress sees the answer as it streams.
// The value is {"events": [{"event", "id", "data"}…], "text": …} as
// plain JSON data, ready for extract and the output schema: every event
// in order (data as its JSON value when it is JSON, else as text; event
// and id only when the stream set them) and the data of all events
// concatenated (the whole answer of a stream of text tokens).
func (inv *Invoker) readSSE(ctx context.Context, body io.Reader) (any, error) {
	var events []any
	var text strings.Builder
	for ev, err := range sse.Read(body, &sse.ReadConfig{MaxEventSize: MaxEventBytes}) {
		if err != nil {
			if errors.Is(err, netguard.ErrTooLarge) || ctx.Err() != nil {
				return nil, err
			}
			var ne interface{ Timeout() bool }
			if errors.As(err, &ne) {
				return nil, err
			}
			return nil, fmt.Errorf("%w: event stream: %w", ErrBadResponse, err)
		}
		e := map[string]any{"data": sseData(ev.Data)}
		if ev.Type != "" {
			e["event"] = ev.Type
		}
		if ev.LastEventID != "" {
			e["id"] = ev.LastEventID
		}
		events = append(events, e)
		text.WriteString(ev.Data)
		msg := inv.redact(ev.Data)
		if r := []rune(msg); len(r) > MaxProgressMessageRunes {
			msg = string(r[:MaxProgressMessageRunes]) + "…"
		}
		_ = registry.ReportProgress(ctx, registry.Progress{Progress: float64(len(events)), Message: msg})
	}
	if events == nil {
		events = []any{}
	}
	return map[string]any{"events": events, "text": strings.ToValidUTF8(text.String(), "\uFFFD")}, nil
}

// sseData is an event's data as JSON data when it is a JSON value, else
// as text.
func sseData(s string) any {
	t := strings.TrimSpace(s)
	if t != "" && (t[0] == '{' || t[0] == '[' || t[0] == '"') && json.Valid([]byte(t)) {
		if v, err := decodeJSON([]byte(t)); err == nil {
			return v
		}
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

package stats_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/stats"
	"github.com/toolpack-go/toolpack/result"
)

type greetArgs struct {
	Name string `json:"name" validate:"required" description:"Who to greet."`
}

// A host records every call of its registry and shows a summary, as
// ot.stats does.
func ExampleRecorder() {
	dir, err := os.MkdirTemp("", "stats-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer func() { _ = os.RemoveAll(dir) }()

	rec, err := stats.New(stats.Options{Enabled: true, Dir: filepath.Join(dir, "stats")})
	if err != nil {
		log.Fatal(err)
	}
	defer func() { _ = rec.Close(context.Background()) }()

	reg := registry.New(registry.Options{Prefix: new(""), Logger: slog.New(slog.DiscardHandler)})
	if err := registry.AddFunc(reg, "greet", func(ctx context.Context, a greetArgs) (result.Result[string], error) {
		if a.Name == "nobody" {
			return result.Failure[string]("nobody to greet", result.NotFound), nil
		}
		return result.Ok("Hello, " + a.Name + "!"), nil
	}, registry.ToolOptions{Doc: "Greets someone."}); err != nil {
		log.Fatal(err)
	}
	reg.UseOuter(rec.Middleware())

	for _, name := range []string{"Ada", "Grace", "nobody"} {
		raw, _ := json.Marshal(greetArgs{Name: name})
		if _, err := reg.Invoke(context.Background(), "greet", raw); err != nil {
			log.Fatal(err)
		}
	}

	s, err := rec.Summary(context.Background(), stats.Query{Period: stats.PeriodDay})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("total_calls: %d, success_rate: %.1f, context_saved: %d, time_saved_ms: %d\n",
		s.TotalCalls, s.SuccessRate, s.ContextSaved, s.TimeSavedMs)
	for _, t := range s.Tools {
		fmt.Printf("%s: %d calls, errors %v, bytes out %d\n", t.Tool, t.Calls, t.Errors, t.BytesOut)
	}

	path, err := rec.WriteReport(s, "today.html")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("html_report:", filepath.Base(path))

	_, err = rec.Summary(context.Background(), stats.Query{Period: "year"})
	fmt.Println(err)
	fmt.Println(errors.Is(err, stats.ErrInvalidPeriod))
	// Output:
	// total_calls: 3, success_rate: 66.7, context_saved: 6000, time_saved_ms: 9000
	// greet: 3 calls, errors map[not_found:1], bytes out 39
	// html_report: today.html
	// Error: Invalid period 'year'. Valid: day, week, month, all. Example: ot.stats(period='day')
	// true
}

// With KeepDays, records older than that many days stop counting and their
// day files are removed: by the flusher every hour, or at once with Prune.
func ExampleRecorder_Prune() {
	dir, err := os.MkdirTemp("", "stats-prune-")
	if err != nil {
		log.Fatal(err)
	}
	defer func() { _ = os.RemoveAll(dir) }()
	// Two days of records, as an earlier run of the host left them.
	for day, line := range map[string]string{
		"2026-09-01": `{"time":"2026-09-01T10:00:00Z","tool":"greet","duration_ns":1000,"success":true,"bytes_in":2,"bytes_out":12}`,
		"2026-11-20": `{"time":"2026-11-20T10:00:00Z","tool":"greet","duration_ns":1000,"success":true,"bytes_in":2,"bytes_out":12}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, "stats-"+day+".jsonl"), []byte(line+"\n"), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	now := func() time.Time { return time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC) }
	rec, err := stats.New(stats.Options{Enabled: true, Dir: dir, KeepDays: 30, Now: now, FlushInterval: time.Hour})
	if err != nil {
		log.Fatal(err)
	}
	defer func() { _ = rec.Close(context.Background()) }()

	s, err := rec.Summary(context.Background(), stats.Query{Period: stats.PeriodAll})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("total_calls:", s.TotalCalls)
	if err := rec.Prune(context.Background()); err != nil {
		log.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "stats-*.jsonl"))
	for _, f := range files {
		fmt.Println(filepath.Base(f))
	}
	// Output:
	// total_calls: 1
	// stats-2026-11-20.jsonl
}

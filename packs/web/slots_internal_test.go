package web

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// gate is an article extractor the test controls: each extraction
// reports itself on events ("extracting") and runs until the test sends
// on release. It counts the extractions running at once and their peak.
type gate struct {
	events  chan string
	release chan struct{}
	calls   atomic.Int32
	running atomic.Int32
	peak    atomic.Int32
	// then, when set, is what the i-th extraction (from 0) does once
	// released: panic, fail, or (nil) return an article.
	then func(i int32) error
	once sync.Once
}

// open lets every extraction, blocked or to come, run through.
func (g *gate) open() { g.once.Do(func() { close(g.release) }) }

func newGate(t *testing.T, capacity int) *gate {
	g := &gate{events: make(chan string, capacity), release: make(chan struct{})}
	// On a failed assertion, extractors still blocked are let go.
	t.Cleanup(g.open)
	return g
}

func (g *gate) extract(string, *url.URL, bool) (FetchOutput, error) {
	i := g.calls.Add(1) - 1
	n := g.running.Add(1)
	for p := g.peak.Load(); n > p && !g.peak.CompareAndSwap(p, n); p = g.peak.Load() {
	}
	defer g.running.Add(-1)
	g.events <- "extracting"
	<-g.release
	if g.then != nil {
		if err := g.then(i); err != nil {
			return FetchOutput{}, err
		}
	}
	return FetchOutput{CleanText: "the article"}, nil
}

// pagesSite serves an HTML page at /page and plain text at /plain on
// 127.0.0.1.
func pagesSite(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte("<html><head><title>T</title></head><body><p>The volunteers in Portwick rebuilt the pier.</p></body></html>"))
	})
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("Release notes"))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// gatedFetcher is a fetcher of the test site with at most slots
// extractions at once, extracting through g; waiting reports the calls
// that start waiting for a slot on g.events ("waiting").
func gatedFetcher(t testing.TB, slots int, g *gate) *fetcher {
	t.Helper()
	f, err := newFetcher(&pack{log: slog.New(slog.DiscardHandler)}, FetchConfig{
		AllowAddrs: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, MaxConcurrentExtractions: slots,
	})
	require.NoError(t, err)
	f.extractHTML = g.extract
	f.waiting = func() { g.events <- "waiting" }
	return f
}

func fetchArgs(u string) FetchArgs {
	p := PageURL(u)
	return FetchArgs{URL: &p}
}

// fetchAsync runs f.fetch on its own goroutine; the result comes on the
// channel.
func fetchAsync(ctx context.Context, f *fetcher, u string) <-chan result.Result[FetchOutput] {
	done := make(chan result.Result[FetchOutput], 1)
	go func() {
		r, _ := f.fetch(ctx, fetchArgs(u))
		done <- r
	}()
	return done
}

// count receives n events and counts them by kind.
func count(g *gate, n int) map[string]int {
	got := map[string]int{}
	for range n {
		got[<-g.events]++
	}
	return got
}

// With MaxConcurrentExtractions 1, five concurrent calls extract one at a
// time: while one extractor runs, the four others wait for the slot, and
// each starts only when the one before it has returned.
func TestFetch_ExtractionsNeverExceedMaxConcurrentExtractions(t *testing.T) {
	const calls = 5
	srv := pagesSite(t)
	g := newGate(t, 2*calls)
	f := gatedFetcher(t, 1, g)
	var results []<-chan result.Result[FetchOutput]
	for range calls {
		results = append(results, fetchAsync(t.Context(), f, srv.URL+"/page"))
	}
	require.Equal(t, map[string]int{"extracting": 1, "waiting": calls - 1}, count(g, calls), "one extracts, the others wait")
	for range calls - 1 {
		g.release <- struct{}{}
		require.Equal(t, "extracting", <-g.events, "the next starts when the slot is free")
		assert.Equal(t, int32(1), g.running.Load())
	}
	g.release <- struct{}{}
	for _, c := range results {
		r := <-c
		require.True(t, r.Success, "%s: %s", r.ErrorType, r.Error)
		assert.Equal(t, "the article", r.Value.CleanText)
	}
	assert.Equal(t, int32(1), g.peak.Load(), "never more than one extractor at once")
	assert.Equal(t, int32(calls), g.calls.Load())
}

// For any bound and number of concurrent calls, the extractions running
// at once never pass the bound, it is reached when there are calls
// enough, and every call is extracted in the end.
func TestFetch_ExtractionsBoundedProperty(t *testing.T) {
	srv := pagesSite(t)
	rapid.Check(t, func(rt *rapid.T) {
		slots := rapid.IntRange(1, 4).Draw(rt, "slots")
		calls := rapid.IntRange(1, 8).Draw(rt, "calls")
		g := newGate(t, 2*calls)
		f := gatedFetcher(t, slots, g)
		var results []<-chan result.Result[FetchOutput]
		for range calls {
			results = append(results, fetchAsync(t.Context(), f, srv.URL+"/page"))
		}
		first := min(slots, calls)
		if got := count(g, calls); got["extracting"] != first || got["waiting"] != calls-first {
			rt.Fatalf("before any extraction ended: %v; expected %d extracting, %d waiting", got, first, calls-first)
		}
		for range calls - first {
			g.release <- struct{}{}
			if ev := <-g.events; ev != "extracting" {
				rt.Fatalf("after a release: %s", ev)
			}
		}
		for range first {
			g.release <- struct{}{}
		}
		for _, c := range results {
			if r := <-c; !r.Success {
				rt.Fatalf("%s: %s", r.ErrorType, r.Error)
			}
		}
		if p := g.peak.Load(); int(p) != first {
			rt.Fatalf("peak %d extractions at once; expected %d", p, first)
		}
	})
}

// endable is a context the test ends with context.DeadlineExceeded when it
// closes done: a deadline that passes when the test says, not after a
// time.
type endable struct {
	context.Context
	done chan struct{}
}

func (c *endable) Done() <-chan struct{} { return c.done }

func (c *endable) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// A call whose time runs out, or which is cancelled, while it waits for
// the extraction slot fails at once with timeout saying so, and its page
// is never extracted, then or later.
func TestFetch_CallEndedWhileWaitingForSlotFailsWithoutExtracting(t *testing.T) {
	for _, c := range []struct {
		name string
		ctx  func() (context.Context, func())
		want string
	}{
		{"deadline", func() (context.Context, func()) {
			e := &endable{Context: context.Background(), done: make(chan struct{})}
			return e, func() { close(e.done) }
		}, "the page was fetched but not extracted: the call ran out of time (the limit is 30s) while it waited for an extraction slot (web.fetch extracts at most 1 at once)"},
		{"cancelled", func() (context.Context, func()) { return context.WithCancel(context.Background()) },
			"the page was fetched but not extracted: the call was cancelled while it waited for an extraction slot"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := pagesSite(t)
			g := newGate(t, 4)
			f := gatedFetcher(t, 1, g)
			first := fetchAsync(t.Context(), f, srv.URL+"/page")
			require.Equal(t, "extracting", <-g.events)

			ctx, end := c.ctx()
			second := fetchAsync(ctx, f, srv.URL+"/page")
			require.Equal(t, "waiting", <-g.events, "the second call waits for the slot")
			end()
			r := <-second
			require.False(t, r.Success)
			assert.Equal(t, ErrTimeout, r.ErrorType)
			assert.Contains(t, r.Error, c.want)

			g.release <- struct{}{}
			require.True(t, (<-first).Success)
			assert.Equal(t, int32(1), g.calls.Load(), "the ended call's page was never extracted")
			assert.Empty(t, g.events)
		})
	}
}

// A call whose time has run out (or which was cancelled) by the time its
// page is downloaded does not start the extractor, even with a slot free.
func TestFetch_CallEndedBeforeExtractionSkipsIt(t *testing.T) {
	g := newGate(t, 4)
	g.open() // an extraction, if one were started, would run through
	f := gatedFetcher(t, 1, g)
	page, _ := url.Parse("https://example.com/a")
	body := []byte("<html><body><p>The volunteers in Portwick rebuilt the pier.</p></body></html>")

	ended := &endable{Context: context.Background(), done: make(chan struct{})}
	close(ended.done)
	r, err := f.extract(ended, "https://example.com/a", body, "text/html", page, false)
	require.NoError(t, err)
	assert.Equal(t, ErrTimeout, r.ErrorType)
	assert.Equal(t, "the page was fetched but not extracted: the call ran out of time (the limit is 30s) before extraction began", r.Error)

	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	r, err = f.extract(cancelled, "https://example.com/a", body, "text/html", page, false)
	require.NoError(t, err)
	assert.Equal(t, ErrTimeout, r.ErrorType)
	assert.Contains(t, r.Error, "the call was cancelled before extraction began")
	assert.Equal(t, int32(0), g.calls.Load(), "the extractor was not started")
	assert.Empty(t, g.events, "nor a slot waited for")
}

// The slot is given back however the extraction ends: after an extractor
// that panics and one that fails, the next call gets the slot at once
// and is extracted.
func TestFetch_ExtractionSlotReleasedAfterPanicAndFailure(t *testing.T) {
	srv := pagesSite(t)
	g := newGate(t, 4)
	g.open() // every extraction runs straight through
	g.then = func(i int32) error {
		switch i {
		case 0:
			panic("extractor bug")
		case 1:
			return errors.New("no readable text was found in the page")
		}
		return nil
	}
	f := gatedFetcher(t, 1, g)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	f.waiting = func() {
		t.Error("a call waited: the slot was not given back")
		cancel()
	}

	panicked := func() (p any) {
		defer func() { p = recover() }()
		_, _ = f.fetch(ctx, fetchArgs(srv.URL+"/page"))
		return nil
	}()
	require.Equal(t, "extractor bug", panicked)

	r, err := f.fetch(ctx, fetchArgs(srv.URL+"/page"))
	require.NoError(t, err)
	assert.Equal(t, ErrParseFailed, r.ErrorType)

	r, err = f.fetch(ctx, fetchArgs(srv.URL+"/page"))
	require.NoError(t, err)
	require.True(t, r.Success, "%s: %s", r.ErrorType, r.Error)
	assert.Equal(t, int32(3), g.calls.Load())
}

// Text that is not HTML is returned without an extraction slot: it is not
// held up behind a running extraction.
func TestFetch_TextPagesTakeNoExtractionSlot(t *testing.T) {
	srv := pagesSite(t)
	g := newGate(t, 4)
	f := gatedFetcher(t, 1, g)
	first := fetchAsync(t.Context(), f, srv.URL+"/page")
	require.Equal(t, "extracting", <-g.events)

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	f.waiting = func() {
		g.events <- "waiting"
		cancel() // a text page held up behind the extraction fails instead of hanging
	}
	r, err := f.fetch(ctx, fetchArgs(srv.URL+"/plain"))
	require.NoError(t, err)
	require.True(t, r.Success, "%s: %s", r.ErrorType, r.Error)
	assert.Equal(t, "Release notes", r.Value.CleanText)
	assert.Empty(t, g.events, "the text page neither waited nor was extracted")

	g.release <- struct{}{}
	require.True(t, (<-first).Success)
}

// MaxConcurrentExtractions 0 is the default, half of GOMAXPROCS and at
// least 1; a negative value is refused naming the field.
func TestNew_MaxConcurrentExtractions(t *testing.T) {
	f, err := newFetcher(&pack{log: slog.New(slog.DiscardHandler)}, FetchConfig{})
	require.NoError(t, err)
	assert.Equal(t, max(1, runtime.GOMAXPROCS(0)/2), f.slots.Size())
	assert.Equal(t, f.slots.Size(), DefaultMaxConcurrentExtractions())

	_, err = New(Config{Fetch: FetchConfig{MaxConcurrentExtractions: -1}})
	require.Error(t, err)
	assert.Equal(t, "web: Config.Fetch.MaxConcurrentExtractions: expected a positive number of extractions at once (0 for the default), got -1", err.Error())
}

// Through the registry, whose timeout of the tool has the call's own
// deadline, a call that waited for an extraction slot until its time ran
// out says so (the wait ends a little before the deadline), and two builds
// of the pack given the same ExtractionSlots share the bound: a slot held
// for a call of the first build (an abandoned extraction) keeps the
// second's calls waiting, as a configuration reload rebuilding the pack
// must.
func TestFetch_SlotWaitSaidThroughTheRegistryAndSlotsSharedAcrossBuilds(t *testing.T) {
	srv := pagesSite(t)
	slots, err := NewExtractionSlots(1)
	require.NoError(t, err)
	_, err = New(Config{Fetch: FetchConfig{Slots: slots, MaxConcurrentExtractions: 2}})
	require.ErrorContains(t, err, "MaxConcurrentExtractions: expected 0 when Slots is set")
	_, err = New(Config{Fetch: FetchConfig{Slots: &ExtractionSlots{}}})
	require.ErrorContains(t, err, "Config.Fetch.Slots: expected one made by NewExtractionSlots", "a zero ExtractionSlots made every HTML fetch panic")
	build := func() *registry.Registry {
		p, err := New(Config{Fetch: FetchConfig{AllowAddrs: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, Timeout: 600 * time.Millisecond, Slots: slots},
			Logger: slog.New(slog.DiscardHandler)})
		require.NoError(t, err)
		reg := registry.New(registry.Options{Logger: slog.New(slog.DiscardHandler)})
		require.NoError(t, reg.AddPack(p))
		return reg
	}
	build() // the first build, whose extraction (below) holds the only slot
	second := build()
	require.True(t, slots.tryAcquire())
	defer slots.release()
	r, err := second.Invoke(t.Context(), "web.fetch", json.RawMessage(`{"url":"`+srv.URL+`/page"}`))
	require.NoError(t, err)
	require.False(t, r.Success)
	assert.Equal(t, ErrTimeout, r.ErrorType)
	assert.Contains(t, r.Error, "while it waited for an extraction slot (web.fetch extracts at most 1 at once)")
}

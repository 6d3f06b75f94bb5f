package transcript_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/adapters/httpapi"
	"github.com/toolpack-go/toolpack/internal/contracttest"
	"github.com/toolpack-go/toolpack/internal/testlog"
	"github.com/toolpack-go/toolpack/packs/transcript"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

var quiet = slog.New(slog.DiscardHandler)

// fakeModel is an OpenAI-compatible chat endpoint on 127.0.0.1: it
// answers with the user message upper-cased (its "cleaning"), or as the
// test sets.
type fakeModel struct {
	mu       sync.Mutex
	requests []map[string]any
	auth     []string
	answer   func(w http.ResponseWriter, user string)
}

func (f *fakeModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	var req map[string]any
	if err := json.NewDecoder(io.LimitReader(r.Body, 16<<20)).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	msgs := req["messages"].([]any)
	user := msgs[len(msgs)-1].(map[string]any)["content"].(string)
	f.mu.Lock()
	f.requests = append(f.requests, req)
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	answer := f.answer
	f.mu.Unlock()
	if answer != nil {
		answer(w, user)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": strings.ToUpper(user)}}}})
}

func newPack(t *testing.T, f *fakeModel, cfg transcript.Config) *registry.Registry {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	cfg.BaseURL, cfg.AllowPrivate, cfg.Logger = srv.URL, true, quiet
	if cfg.Model == "" {
		cfg.Model = "cleaner"
	}
	p, err := transcript.New(cfg)
	require.NoError(t, err)
	reg := registry.New(registry.Options{Logger: quiet})
	require.NoError(t, reg.AddPack(p))
	return reg
}

func clean(t *testing.T, reg *registry.Registry, text string) result.Result[any] {
	t.Helper()
	raw, _ := json.Marshal(map[string]string{"text": text})
	r, err := reg.Invoke(context.Background(), "transcript.clean", raw)
	require.NoError(t, err)
	return r
}

// The generated schemas equal the contract's (seed 003), key order aside,
// and the declared errors carry the contract's HTTP statuses.
func TestContract_SchemasAndErrorsEqualSeed(t *testing.T) {
	p, err := transcript.New(transcript.Config{BaseURL: "http://127.0.0.1:1", Model: "m"})
	require.NoError(t, err)
	contracttest.Check(t, p, "testdata/contract.json")
}

// A transcript is cleaned by the model: the request names the model,
// carries the key as a bearer token, sends the transcript; the answer is
// clean_text.
func TestClean_ReturnsTheModelsText(t *testing.T) {
	f := &fakeModel{}
	reg := newPack(t, f, transcript.Config{APIKey: "sk-test", Model: "m1"})
	r := clean(t, reg, "um so like hello there.")
	require.True(t, r.Success, r.Error)
	assert.Equal(t, transcript.Output{CleanText: "UM SO LIKE HELLO THERE."}, r.Value)
	require.Len(t, f.requests, 1)
	assert.Equal(t, "m1", f.requests[0]["model"])
	assert.Equal(t, "Bearer sk-test", f.auth[0])
}

// A long transcript is split at sentence boundaries into chunks that fit
// the context, cleaned one by one and joined in order.
func TestClean_LongTranscriptInOrderedChunks(t *testing.T) {
	f := &fakeModel{}
	reg := newPack(t, f, transcript.Config{ContextTokens: 256})
	var sb strings.Builder
	for i := range 60 {
		sb.WriteString("sentence number " + strings.Repeat("x", i%7) + " ends here. ")
	}
	r := clean(t, reg, sb.String())
	require.True(t, r.Success, r.Error)
	assert.Greater(t, len(f.requests), 2, "several chunks")
	out := r.Value.(transcript.Output).CleanText
	assert.Equal(t, strings.Join(strings.Fields(strings.ToUpper(sb.String())), " "), strings.Join(strings.Fields(out), " "), "every word, in order")
	for _, req := range f.requests {
		msgs := req["messages"].([]any)
		user := msgs[1].(map[string]any)["content"].(string)
		assert.True(t, strings.HasSuffix(user, "."), "a chunk ends at a sentence end: %q", user)
	}
}

// Endpoint failures are model_error, a slow model is timeout; over HTTP
// they answer 502 and 504, as the contract says. The key never shows.
func TestClean_ErrorsAndHTTPStatuses(t *testing.T) {
	cases := []struct {
		name   string
		answer func(w http.ResponseWriter, user string)
		typ    result.ErrorType
		status int
	}{
		{"upstream 500", func(w http.ResponseWriter, _ string) { http.Error(w, "boom sk-secret", 500) }, transcript.ErrModel, 502},
		{"not a completion", func(w http.ResponseWriter, _ string) { _, _ = w.Write([]byte(`{"oops":true}`)) }, transcript.ErrModel, 502},
		{"empty answer", func(w http.ResponseWriter, _ string) {
			_, _ = w.Write([]byte(`{"choices":[{"message":{"content":"  "}}]}`))
		}, transcript.ErrModel, 502},
		{"slow", func(w http.ResponseWriter, _ string) { time.Sleep(600 * time.Millisecond) }, transcript.ErrTimeout, 504},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &fakeModel{answer: c.answer}
			reg := newPack(t, f, transcript.Config{APIKey: "sk-secret", Timeout: 300 * time.Millisecond})
			r := clean(t, reg, "hello.")
			require.False(t, r.Success)
			assert.Equal(t, c.typ, r.ErrorType)
			assert.NotContains(t, r.Error, "sk-secret")

			api := httptest.NewServer(httpapi.New(reg, httpapi.Options{Logger: quiet}))
			defer api.Close()
			resp, err := http.Post(api.URL+"/tools/transcript.clean/invoke", "application/json", strings.NewReader(`{"text":"hello."}`))
			require.NoError(t, err)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			assert.Equal(t, c.status, resp.StatusCode, "%s", body)
			assert.NotContains(t, string(body), "sk-secret")
		})
	}
}

// Every contract code is reached through MCP (the result's _meta) and
// HTTP (the contract's status).
func TestClean_ErrorsThroughMCPAndHTTP(t *testing.T) {
	f := &fakeModel{}
	reg := newPack(t, f, transcript.Config{APIKey: "sk-secret", Timeout: 300 * time.Millisecond})
	answers := []struct {
		answer func(w http.ResponseWriter, user string)
		typ    result.ErrorType
		status int
	}{
		{func(w http.ResponseWriter, _ string) { http.Error(w, "boom sk-secret", 500) }, transcript.ErrModel, 502},
		{func(w http.ResponseWriter, _ string) { time.Sleep(600 * time.Millisecond) }, transcript.ErrTimeout, 504},
	}
	var n int
	contracttest.Codes(t, reg, "transcript.clean", func(i int) (contracttest.Case, bool) {
		if i >= len(answers) {
			return contracttest.Case{}, false
		}
		f.mu.Lock()
		f.answer = answers[i].answer
		f.mu.Unlock()
		n++
		return contracttest.Case{Args: map[string]any{"text": "hello."}, Type: string(answers[i].typ), Status: answers[i].status}, true
	})
	assert.Equal(t, len(answers), n)
}

// Bad input: empty text is a validation failure listing the field, and
// nothing reaches the model.
func TestClean_EmptyTextRefused(t *testing.T) {
	f := &fakeModel{}
	reg := newPack(t, f, transcript.Config{})
	r := clean(t, reg, "")
	assert.Equal(t, result.ValidationError, r.ErrorType)
	assert.Empty(t, f.requests)
}

// A bad Config is an error naming the field.
func TestNew_BadConfig(t *testing.T) {
	for cfg, want := range map[*transcript.Config]string{
		{Model: "m"}:                     "Config.BaseURL",
		{BaseURL: "ftp://x", Model: "m"}: "Config.BaseURL",
		{BaseURL: "http://x"}:            "Config.Model",
		{BaseURL: "http://x", Model: "m", ContextTokens: 10}: "Config.ContextTokens",
		{BaseURL: "http://x", Model: "m", Timeout: -1}:       "Config.Timeout",
	} {
		_, err := transcript.New(*cfg)
		require.ErrorContains(t, err, want)
	}
}

// A refused Config.BaseURL is never quoted: its query, fragment, path or
// password may carry a key.
func TestNew_BaseURLErrorQuotesNoSecret(t *testing.T) {
	const secret = "S3CR3T-url-value"
	for _, raw := range []string{
		"http://u:" + secret + "@127.0.0.1:45799/?key=" + secret,
		"ftp://127.0.0.1/" + secret + "?key=" + secret + "#" + secret,
		"http:///?key=" + secret,
		"http://%zz/?key=" + secret,
	} {
		_, err := transcript.New(transcript.Config{BaseURL: raw, Model: "m"})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "Config.BaseURL")
		assert.NotContains(t, err.Error(), secret)
		assert.NotContains(t, err.Error(), "key=")
	}
}

func nonSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// Property: chunks hold at most n runes each and, joined, every non-space
// character of the text in order.
func TestChunksProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		text := rapid.StringMatching(`([A-Za-zé今日は ]{0,30}[.!?…。！？]? ?\n?){0,20}`).Draw(t, "text")
		n := rapid.IntRange(1, 40).Draw(t, "n")
		chunks := transcript.Chunks(text, n)
		for _, c := range chunks {
			assert.LessOrEqual(t, utf8.RuneCountInString(c), n, "%q", c)
			assert.NotEmpty(t, strings.TrimSpace(c))
		}
		assert.Equal(t, nonSpace(text), nonSpace(strings.Join(chunks, "")))
	})
}

// Chinese and Japanese sentences end at 。！？ with no space after them: a
// transcript in them is split there, not in the middle of a sentence.
func TestChunks_FullWidthSentenceEnds(t *testing.T) {
	assert.Equal(t, []string{"今日は晴れです。", "明日は雨ですか？", "はい！"}, transcript.Chunks("今日は晴れです。明日は雨ですか？はい！", 9))
	assert.Equal(t, []string{"मैं घर जा रहा हूँ।", "तुम कहाँ हो?"}, transcript.Chunks("मैं घर जा रहा हूँ। तुम कहाँ हो?", 18))
}

// A transcript is split at sentence ends into pieces that fit; a sentence
// too long for one piece is split at spaces.
func ExampleChunks() {
	for _, c := range transcript.Chunks("First one. Second one is much longer! Third?", 24) {
		fmt.Printf("%q\n", c)
	}
	// Output:
	// "First one."
	// "Second one is much"
	// "longer! Third?"
}

// Values of Config.Secrets (a token the host configuration's ${VAR} put in
// BaseURL's path or query) and the API key stay out of the pack's log and
// of the failure: netguard, which quotes the URL's path, redacts them.
func TestClean_URLSecretsNotLogged(t *testing.T) {
	const pw = "S3CR3T-path-token"
	var logs testlog.Buffer
	p, err := transcript.New(transcript.Config{BaseURL: "http://127.0.0.1:45799/" + pw + "/v1?key=" + pw,
		APIKey: pw + "X", Secrets: []string{pw}, Model: "m", Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	require.NoError(t, err)
	reg := registry.New(registry.Options{Logger: quiet})
	require.NoError(t, reg.AddPack(p))
	r := clean(t, reg, "hello")
	require.False(t, r.Success)
	assert.Contains(t, logs.String(), "transcript: model endpoint", "the refused loopback address is logged")
	assert.Contains(t, logs.String(), "[REDACTED]")
	assert.NotContains(t, logs.String()+r.Error, pw)
}

// An API key shorter than netguard.MinSecretLen is not redacted inside
// the words of a logged error ("request bloc[REDACTED]ed").
func TestClean_TinyAPIKeyNotRedactedInsideWords(t *testing.T) {
	var logs testlog.Buffer
	p, err := transcript.New(transcript.Config{BaseURL: "http://127.0.0.1:45799/", APIKey: "k", Model: "m",
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	require.NoError(t, err)
	reg := registry.New(registry.Options{Logger: quiet})
	require.NoError(t, reg.AddPack(p))
	require.False(t, clean(t, reg, "hello").Success)
	assert.Contains(t, logs.String(), "netguard: request blocked")
	assert.NotContains(t, logs.String(), "[REDACTED]")
}

// Package transcript is the transcript pack: transcript.clean turns a raw
// speech transcript (filler words, false starts, missing punctuation) into
// clean text with a model behind an OpenAI-compatible chat endpoint (a
// LiteLLM gateway, a local server), as the tool contract of seed 003
// defines it: input {text}, output {clean_text}, failures model_error
// (HTTP 502) and timeout (504).
//
// A transcript longer than the model's context is split at sentence
// boundaries into chunks that fit (Config.ContextTokens, estimated at four
// characters per token, half for the answer), cleaned one after the other
// and joined back in order. Requests go through the module's safe
// outbound-HTTP client (netguard) to the configured endpoint only.
//
//	p, err := transcript.New(transcript.Config{BaseURL: "http://127.0.0.1:4000", APIKey: key, Model: "gpt-4.1-mini"})
//	err = reg.AddPack(p)
package transcript

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/toolpack-go/toolpack/netguard"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// PackName is the pack's name.
const PackName = "transcript"

// The contract's error types.
const (
	// ErrModel: the model endpoint failed or answered nothing usable.
	ErrModel result.ErrorType = "model_error"
	// ErrTimeout: the call ran out of time.
	ErrTimeout result.ErrorType = result.Timeout
)

// Defaults of Config.
const (
	DefaultContextTokens = 8192
	DefaultTimeout       = 120 * time.Second
	// MaxTextBytes caps the transcript a call takes.
	MaxTextBytes = 4 << 20
	// maxAnswerBytes caps one model answer read.
	maxAnswerBytes = 8 << 20
)

// Config configures the pack (host configuration key transcript:).
type Config struct {
	// BaseURL is the OpenAI-compatible endpoint's base (requests go to
	// BaseURL + "/v1/chat/completions", or + "/chat/completions" when it
	// already ends in /v1). Required: http or https, without user
	// information; errors never quote it.
	BaseURL string
	// APIKey is sent as a bearer token when set; never logged.
	APIKey string
	// Secrets are more values kept out of the pack's logs and errors
	// (replaced by "[REDACTED]"), as well as APIKey: a token in BaseURL's
	// path or query, say (the host configuration gives the values its
	// ${VAR}s took: hostconfig.Transcript.Secrets). As with every
	// secret of netguard, values shorter than netguard.MinSecretLen bytes
	// are redacted only as whole words, not inside other words.
	Secrets []string
	// Model is the model name. Required.
	Model string
	// ContextTokens is the model's context size; 0 means
	// DefaultContextTokens. At least 256.
	ContextTokens int
	// Timeout bounds one tool call; 0 means DefaultTimeout.
	Timeout time.Duration
	// AllowPrivate lets BaseURL be a loopback or private address (a
	// gateway on the host or the LAN); other destinations are never
	// reached.
	AllowPrivate bool
	// Logger logs failures of the endpoint; nil means slog.Default.
	Logger *slog.Logger
}

// Args are transcript.clean's arguments.
type Args struct {
	Text string `json:"text" validate:"required"`
}

// Output is transcript.clean's answer.
type Output struct {
	CleanText string `json:"clean_text" validate:"required"`
}

type pack struct {
	cfg      Config
	endpoint string
	client   *netguard.Client
	log      *slog.Logger
}

// New returns the pack. A bad Config is an error naming the field.
func New(cfg Config) (*registry.Pack, error) {
	if cfg.BaseURL == "" {
		return nil, errors.New("transcript: Config.BaseURL: expected the endpoint's base URL, got nothing")
	}
	u, err := netguard.ParseBaseURL(cfg.BaseURL)
	switch {
	case err != nil:
		return nil, fmt.Errorf("transcript: Config.BaseURL: %w", err)
	case strings.TrimSpace(cfg.Model) == "":
		return nil, errors.New("transcript: Config.Model: expected a model name, got nothing")
	case cfg.ContextTokens != 0 && cfg.ContextTokens < 256:
		return nil, fmt.Errorf("transcript: Config.ContextTokens: expected at least 256, got %d", cfg.ContextTokens)
	case cfg.Timeout < 0:
		return nil, fmt.Errorf("transcript: Config.Timeout: expected a positive duration, got %s", cfg.Timeout)
	}
	if cfg.ContextTokens == 0 {
		cfg.ContextTokens = DefaultContextTokens
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	p := &pack{cfg: cfg, log: cfg.Logger}
	if p.log == nil {
		p.log = slog.Default()
	}
	path := strings.TrimRight(u.Path, "/")
	if !strings.HasSuffix(path, "/v1") {
		path += "/v1"
	}
	u.Path = path + "/chat/completions"
	p.endpoint = u.String()
	p.client, err = netguard.New(netguard.Options{AllowedHosts: []string{u.Host}, AllowPrivate: cfg.AllowPrivate,
		Timeout: cfg.Timeout, MaxResponseBytes: maxAnswerBytes, MaxRetries: 2,
		Secrets: append([]string{cfg.APIKey}, cfg.Secrets...)})
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	pk := &registry.Pack{Name: PackName, Description: "Cleans speech transcripts with a language model."}
	if err := registry.AddFunc(pk, "transcript.clean", p.clean, registry.ToolOptions{
		Title:       "Clean a transcript",
		Description: "Cleans a raw speech transcript: removes filler words and false starts, fixes punctuation and casing, keeps the speaker's words and meaning. Long transcripts are cleaned in chunks and joined in order.",
		Annotations: registry.Annotations{ReadOnly: new(true), Idempotent: new(false), OpenWorld: new(true)},
		Prefix:      new(""),
		Timeout:     cfg.Timeout,
		Errors: []registry.ErrorSpec{
			{Type: ErrModel, Status: http.StatusBadGateway, Description: "the model endpoint failed or answered nothing usable"},
			{Type: ErrTimeout, Status: http.StatusGatewayTimeout, Description: "the transcript was not cleaned in time"},
		},
	}); err != nil {
		return nil, err
	}
	return pk, nil
}

// systemPrompt tells the model what cleaning means.
const systemPrompt = "You clean speech transcripts. Remove filler words (um, uh, like, you know), stutters and false starts; fix punctuation, casing and obvious transcription errors; keep the speaker's words, order and meaning; add nothing. Answer with the cleaned text only."

func (p *pack) clean(ctx context.Context, a Args) (result.Result[Output], error) {
	if len(a.Text) > MaxTextBytes {
		return result.Failuref[Output](result.ValidationError, "text: %d bytes; expected at most %d", len(a.Text), MaxTextBytes), nil
	}
	chunks := Chunks(a.Text, p.chunkRunes())
	parts := make([]string, 0, len(chunks))
	for i, c := range chunks {
		out, res := p.complete(ctx, c)
		if res != nil {
			if len(chunks) > 1 {
				res.Error = fmt.Sprintf("chunk %d of %d: %s", i+1, len(chunks), res.Error)
			}
			return *res, nil
		}
		parts = append(parts, out)
	}
	text := strings.TrimSpace(strings.Join(parts, "\n"))
	if text == "" {
		return result.Failure[Output]("the model answered with empty text", ErrModel), nil
	}
	return result.Ok(Output{CleanText: text}), nil
}

// chunkRunes is the most characters of transcript per request: half the
// context for the answer, four characters a token, less the prompt.
func (p *pack) chunkRunes() int {
	return max(256, (p.cfg.ContextTokens/2)*4-utf8.RuneCountInString(systemPrompt))
}

// complete asks the model to clean one chunk; a non-nil Result is the
// failure.
func (p *pack) complete(ctx context.Context, text string) (string, *result.Result[Output]) {
	fail := func(typ result.ErrorType, format string, a ...any) (string, *result.Result[Output]) {
		r := result.Failuref[Output](typ, format, a...)
		return "", &r
	}
	body, err := json.Marshal(map[string]any{"model": p.cfg.Model, "temperature": 0, "messages": []any{
		map[string]string{"role": "system", "content": systemPrompt},
		map[string]string{"role": "user", "content": text},
	}})
	if err != nil {
		return fail(ErrModel, "the request could not be encoded: %v", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.endpoint, bytes.NewReader(body))
	if err != nil {
		return fail(ErrModel, "the request could not be made: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if p.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+p.cfg.APIKey)
	}
	resp, err := p.client.Do(ctx, req)
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
			return fail(ErrTimeout, "the model did not answer in time")
		}
		// netguard's errors are redacted (APIKey and Secrets).
		p.log.Warn("transcript: model endpoint", "err", err.Error())
		return fail(ErrModel, "the model endpoint could not be reached")
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		if ctx.Err() != nil {
			return fail(ErrTimeout, "the model did not answer in time")
		}
		return fail(ErrModel, "the model's answer could not be read")
	}
	if resp.StatusCode/100 != 2 {
		p.log.Warn("transcript: model endpoint answered an error", "status", resp.StatusCode)
		return fail(ErrModel, "the model endpoint answered HTTP %d", resp.StatusCode)
	}
	var cr struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(raw, &cr); err != nil || len(cr.Choices) == 0 {
		return fail(ErrModel, "the model's answer is not a chat completion")
	}
	out := strings.TrimSpace(cr.Choices[0].Message.Content)
	if out == "" {
		return fail(ErrModel, "the model answered with empty text")
	}
	return out, nil
}

// Chunks splits text at sentence boundaries into pieces of at most n
// runes each (a sentence longer than n is split at white space, and a
// word longer than n at n runes), in order; joined, the pieces hold every
// non-space character of text in order. n < 1 means 1.
func Chunks(text string, n int) []string {
	n = max(n, 1)
	var out []string
	var cur strings.Builder
	curRunes := 0
	flush := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
			out = append(out, s)
		}
		cur.Reset()
		curRunes = 0
	}
	for _, s := range sentences(text) {
		r := utf8.RuneCountInString(s)
		if curRunes > 0 && curRunes+r > n {
			flush()
		}
		if r <= n {
			cur.WriteString(s)
			curRunes += r
			continue
		}
		for _, piece := range split(s, n) {
			flush()
			cur.WriteString(piece)
			curRunes = utf8.RuneCountInString(piece)
		}
	}
	flush()
	return out
}

// sentences splits text after ., !, ?, … or । followed by white space,
// after the full-width 。！？ of Chinese and Japanese (written without a
// space after them), and at line breaks; the pieces keep their separators.
func sentences(text string) []string {
	var out []string
	start := 0
	for i, r := range text {
		end := i + utf8.RuneLen(r)
		if r == '\n' || r == '。' || r == '！' || r == '？' {
			out = append(out, text[start:end])
			start = end
			continue
		}
		if r == '.' || r == '!' || r == '?' || r == '…' || r == '।' {
			if next, _ := utf8.DecodeRuneInString(text[end:]); end < len(text) && unicode.IsSpace(next) {
				out = append(out, text[start:end])
				start = end
			}
		}
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

// split cuts a sentence longer than n runes at white space, and words
// longer than n at n runes.
func split(s string, n int) []string {
	var out []string
	var cur []rune
	for _, w := range strings.SplitAfter(s, " ") {
		wr := []rune(w)
		for len(wr) > n {
			if len(cur) > 0 {
				out = append(out, string(cur))
				cur = nil
			}
			out = append(out, string(wr[:n]))
			wr = wr[n:]
		}
		if len(cur)+len(wr) > n {
			out = append(out, string(cur))
			cur = nil
		}
		cur = append(cur, wr...)
	}
	if len(cur) > 0 {
		out = append(out, string(cur))
	}
	return out
}

package netguard

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/cenkalti/backoff/v5"
)

// Do sends req and returns the response, applying, in order: the URL checks
// (scheme, user information, host syntax, AllowedHosts, IP literals), the
// request body cap, the rate limit, and then up to MaxRetries+1 attempts
// under the call's Timeout, each redirect and each dial checked again. The
// request's own context is ignored in favour of ctx.
//
// A response is returned for any status, including a 429 or 5xx left after
// the retries ran out; its body is capped at MaxResponseBytes and must be
// closed, which also ends the call's timeout. Errors never contain the
// URL's query, user information or a secret; refusals are *BlockedError,
// deadlines wrap context.DeadlineExceeded.
func (c *Client) Do(ctx context.Context, req *http.Request) (*http.Response, error) {
	if req == nil {
		return nil, errors.New("netguard: nil request")
	}
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	where := method + " " + c.red.url(req.URL)
	fail := func(err error) (*http.Response, error) {
		c.log.WarnContext(ctx, "netguard: request failed", "method", method, "url", c.red.url(req.URL), "error", c.red.text(err.Error()))
		return nil, err
	}
	// Like http.Client.Do, the request body is closed whatever happens;
	// these early failures close it themselves.
	closeBody := func() {
		if req.Body != nil {
			_ = req.Body.Close()
		}
	}
	if err := c.checkURL(req.URL, StageRequest); err != nil {
		closeBody()
		return fail(err)
	}
	if req.ContentLength > c.maxReq {
		closeBody()
		return fail(c.red.wrap("netguard: "+where+": ", tooLarge("request", c.maxReq)))
	}
	hasBody := req.Body != nil && req.Body != http.NoBody
	retries := c.maxRetries
	if !c.retryAny && !retryableMethod(req.Method) || hasBody && req.GetBody == nil {
		retries = 0
	}

	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	if c.limiter != nil {
		if err := c.limiter.Wait(ctx); err != nil {
			cerr := context.Cause(ctx)
			cancel()
			closeBody()
			if cerr != nil {
				return fail(c.red.wrap("netguard: "+where+": waiting for the rate limit: ", cerr))
			}
			return fail(c.red.wrap("netguard: "+where+": ", fmt.Errorf("%w: %d calls per minute; no call allowed before the deadline", ErrRateLimited, c.limiter.Burst())))
		}
	}

	attempt := 0
	var prev *http.Response
	op := func() (*http.Response, error) {
		if prev != nil {
			drainClose(prev.Body)
			prev = nil
		}
		attempt++
		r := req.WithContext(ctx)
		if attempt > 1 && hasBody {
			b, err := req.GetBody()
			if err != nil {
				return nil, backoff.Permanent(c.red.wrap("replaying the request body: ", err))
			}
			r.Body = b
		}
		resp, err := c.hc.Do(r)
		if err != nil {
			var ue *url.Error
			if errors.As(err, &ue) {
				err = ue.Err
			}
			if retries == 0 || permanent(err) || ctx.Err() != nil {
				return nil, backoff.Permanent(err)
			}
			return nil, err
		}
		if retries == 0 || !retryableStatus(resp.StatusCode) {
			return resp, nil
		}
		wait := time.Duration(-1)
		if d, ok := parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
			dl, _ := ctx.Deadline()
			if d > c.maxRetryWait || time.Now().Add(d).After(dl) {
				return resp, nil // retrying earlier than asked would not honour it
			}
			wait = d
		}
		prev = resp
		return resp, &statusError{code: resp.StatusCode, wait: wait}
	}
	resp, err := backoff.Retry(ctx, op,
		backoff.WithBackOff(newRetryBackOff(ctx, c.retryBaseWait, c.maxRetryWait)),
		backoff.WithMaxTries(uint(retries)+1),
		backoff.WithMaxElapsedTime(0),
		backoff.WithNotify(func(err error, wait time.Duration) {
			c.log.InfoContext(ctx, "netguard: retrying", "method", method, "url", c.red.url(req.URL),
				"attempt", attempt, "wait", wait, "reason", c.red.text(err.Error()))
		}))
	var se *statusError
	if err != nil && !(errors.As(err, &se) && resp != nil) {
		if resp != nil {
			drainClose(resp.Body)
		}
		cancel()
		var be *BlockedError
		if !errors.As(err, &be) {
			suffix := ""
			if attempt > 1 {
				suffix = " (after " + strconv.Itoa(attempt) + " attempts)"
			}
			err = c.red.wrap("netguard: "+where+": ", &attemptsError{err: err, suffix: suffix})
		}
		return fail(err)
	}
	resp.Body = &callBody{rc: resp.Body, ctx: ctx, cancel: cancel}
	return resp, nil
}

// attemptsError appends the number of attempts to an error's text.
type attemptsError struct {
	err    error
	suffix string
}

func (e *attemptsError) Error() string { return e.err.Error() + e.suffix }
func (e *attemptsError) Unwrap() error { return e.err }

// statusError marks a response worth another attempt; wait >= 0 is the
// server's Retry-After.
type statusError struct {
	code int
	wait time.Duration
}

func (e *statusError) Error() string { return "status " + strconv.Itoa(e.code) }

func (e *statusError) Unwrap() error {
	if e.wait < 0 {
		return nil
	}
	return &backoff.RetryAfterError{Duration: e.wait}
}

// permanent reports errors that another attempt cannot fix.
func permanent(err error) bool {
	var cv *tls.CertificateVerificationError
	return errors.Is(err, ErrBlocked) || errors.Is(err, ErrTooLarge) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.As(err, &cv)
}

// newRetryBackOff returns the waits between attempts: from base, doubling,
// ±50 % jitter, each at most maxWait, none outlasting ctx's deadline.
func newRetryBackOff(ctx context.Context, base, maxWait time.Duration) backoff.BackOff {
	eb := backoff.NewExponentialBackOff()
	eb.InitialInterval = base
	eb.MaxInterval = maxWait
	eb.Multiplier = 2
	eb.RandomizationFactor = 0.5
	eb.Reset()
	return &deadlineBackOff{b: eb, ctx: ctx, max: maxWait}
}

// deadlineBackOff caps each wait at max (the exponential back-off caps
// its interval, then adds up to 50 % jitter on top) and stops the retries
// when the next wait would outlast the call's deadline, so the caller gets
// the last answer instead of a timeout.
type deadlineBackOff struct {
	b   backoff.BackOff
	ctx context.Context
	max time.Duration
}

func (d *deadlineBackOff) NextBackOff() time.Duration {
	n := d.b.NextBackOff()
	if n == backoff.Stop {
		return n
	}
	n = min(n, d.max)
	if dl, ok := d.ctx.Deadline(); ok && time.Until(dl) <= n {
		return backoff.Stop
	}
	return n
}

func (d *deadlineBackOff) Reset() { d.b.Reset() }

// drainClose reads a little of an unwanted body so the connection can be
// reused, then closes it.
func drainClose(b io.ReadCloser) {
	_, _ = io.CopyN(io.Discard, b, 4<<10)
	_ = b.Close()
}

// A real MCP client on the official TypeScript SDK, driven by the Go tests
// (examples/server TestTSClient…, adapters/mcpserver TestTSClient…).
//
//   node client.mjs '<spec JSON>'
//
// spec: {"command": path, "args": [...], "env": {...}}   spawn a server over stdio
//    or {"url": "http://127.0.0.1:port/mcp"}               streamable HTTP
//   plus "calls": [{"name": ..., "arguments": {...}, "progress": true}],
//        "timeoutMs": per-request timeout (default 10000)
//
// It lists the tools first (the SDK then validates every structuredContent
// against the tool's outputSchema, as MCP hosts do), makes each call, and
// prints one JSON document on stdout:
//   {"tools": [{"name", "outputSchema"}], "calls": [{"name", "ok", "result" | "error", "code", "progress": [...]}],
//    "errors": [what the SDK reported to client.onerror]}
// A call the SDK rejects (a result that does not parse, structured content
// that does not match the output schema, a JSON-RPC error) has ok: false
// and the SDK's message. A failure to connect or list exits with status 1.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

async function main() {
  const spec = JSON.parse(process.argv[2] ?? '{}');
  const timeout = spec.timeoutMs ?? 10000;
  let transport;
  if (spec.command) {
    // The SDK passes only a safe default environment (PATH, HOME, …) plus env.
    transport = new StdioClientTransport({ command: spec.command, args: spec.args ?? [], env: spec.env ?? {}, stderr: 'inherit' });
  } else if (spec.url) {
    transport = new StreamableHTTPClientTransport(new URL(spec.url));
  } else {
    throw new Error('spec: expected "command" or "url"');
  }
  const client = new Client({ name: 'toolpack-tsclient', version: '0.0.0' });
  const errors = [];
  client.onerror = (e) => errors.push(String(e?.message ?? e));
  await client.connect(transport, { timeout });

  const listed = await client.listTools(undefined, { timeout });
  const out = {
    tools: listed.tools.map((t) => ({ name: t.name, outputSchema: t.outputSchema ?? null })),
    calls: [],
  };
  for (const call of spec.calls ?? []) {
    const progress = [];
    const options = { timeout };
    if (call.progress) {
      options.onprogress = (p) => progress.push(p);
    }
    try {
      const result = await client.callTool({ name: call.name, arguments: call.arguments ?? {} }, undefined, options);
      out.calls.push({ name: call.name, ok: true, result, progress });
    } catch (e) {
      out.calls.push({ name: call.name, ok: false, error: String(e?.message ?? e), code: e?.code ?? null, progress });
    }
  }
  await client.close();
  out.errors = errors;
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`tsclient: ${e?.stack ?? e}\n`);
    process.exit(1);
  },
);

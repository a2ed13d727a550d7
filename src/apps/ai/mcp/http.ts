import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { speaksJsonRpc, type RouteContext } from '../../../kernel/app.js';
import '../../../server/types.js';
import { createMcpServer } from './server.js';

/** JSON-RPC error codes the MCP transports use for HTTP-level refusals. */
const JSONRPC_SERVER_ERROR = -32000;
const JSONRPC_INTERNAL_ERROR = -32603;

/**
 * MCP over Streamable HTTP at `/mcp`, stateless: every POST gets its own MCP server and
 * transport, bound to the principal of that request's bearer token (the route is authenticated
 * like any other: no or a bad token is a 401 before MCP runs). Answers are plain JSON (no SSE
 * stream: nothing is pushed), so GET (the server-to-client stream) and DELETE (ending a session)
 * are 405, which MCP clients expect from a stateless server.
 */
export function mcpRoutes(server: FastifyInstance, ctx: RouteContext): void {
  const { kernel } = ctx;

  // the transport refuses a client whose Accept lacks either type (406)
  server.post('/mcp', speaksJsonRpc({ accept: ['application/json', 'text/event-stream'] }), async (req, reply) => {
    const mcp = createMcpServer(kernel, req.principal);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    // the transport writes the response itself on the raw Node objects
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    try {
      await mcp.connect(transport);
      // Fastify already read and parsed the JSON body; the transport must not read the stream again
      await transport.handleRequest(req.raw, reply.raw, req.body);
    } catch (err) {
      kernel.log('error', 'MCP request failed', { err: err instanceof Error ? err.stack ?? err.message : String(err) });
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', error: { code: JSONRPC_INTERNAL_ERROR, message: 'Internal server error' }, id: null }));
      } else if (!reply.raw.writableEnded) {
        reply.raw.end();
      }
    }
  });

  const notAllowed = (_req: unknown, reply: FastifyReply) => reply.status(405).header('allow', 'POST').send({
    jsonrpc: '2.0', error: { code: JSONRPC_SERVER_ERROR, message: 'Method not allowed: this MCP server is stateless (POST only)' }, id: null,
  });
  server.get('/mcp', speaksJsonRpc({ allow: 'POST' }), notAllowed);
  server.delete('/mcp', speaksJsonRpc({ allow: 'POST' }), notAllowed);
}

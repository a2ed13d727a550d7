/**
 * JSON bodies: Fastify's own parser (prototype poisoning refused), except that an empty body sent
 * as `application/json` is no body rather than 400 INVALID_JSON. Clients that set the content
 * type on every request (fetch wrappers, axios defaults) send it with a logout or a DELETE that
 * has nothing to say: the logout was refused, so the session the client believed closed stayed
 * open. A route that needs a body sees none, as when no content type was sent (`bodyObject`
 * reads it as `{}`), and refuses what is missing in its own words.
 */
import type { FastifyInstance } from 'fastify';

export function installJsonBody(server: FastifyInstance): void {
  const parse = server.getDefaultJsonParser('error', 'error');
  server.removeContentTypeParser('application/json');
  server.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    // parseAs 'string' hands a string; the type also allows the Buffer of parseAs 'buffer'
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    parse(req, text, done);
  });
}

/**
 * JSON bodies: Fastify's own parser (prototype poisoning refused), except that an empty body sent
 * as `application/json` is no body rather than 400 INVALID_JSON. Clients that set the content
 * type on every request (fetch wrappers, axios defaults) send it with a logout or a DELETE that
 * has nothing to say: the logout was refused, so the session the client believed closed stayed
 * open. A route that needs a body sees none, as when no content type was sent (`bodyObject`
 * reads it as `{}`), and refuses what is missing in its own words. A body refused for a
 * prototype key is 400 FORBIDDEN_JSON_KEY, not "malformed".
 */
import type { FastifyInstance } from 'fastify';
import { BadRequest } from '../kernel/errors.js';

const wellFormed = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

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
    parse(req, text, (err, value) => {
      // the parser refuses `__proto__` and `constructor.prototype` keys (prototype pollution) in
      // the words of malformed JSON; well-formed JSON refused is that refusal, said as such
      if (err && wellFormed(text)) {
        done(new BadRequest('the JSON body holds a "__proto__" or "constructor": { "prototype" } key, which is refused: no record has such a field', undefined, 'FORBIDDEN_JSON_KEY'), undefined);
        return;
      }
      done(err, value);
    });
  });
}

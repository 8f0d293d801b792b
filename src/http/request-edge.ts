import type * as Hapi from '@hapi/hapi';

import { maximoError } from '../errors/maximo-error';
import { answerOptions } from './cors';
import { wellFormedHost } from './hrefs';
import { queryBytesProblem } from './query-bytes';
import { assignRequestId } from './request-log';
import { securityHeaders } from './security-headers';


// The first step of every request: the security headers and the request id go on its answer, whatever becomes of
// it, and a request whose Host is no host is refused before anything reads its URL (hapi cannot make one of it,
// and every href and cookie is built from it), as is one whose query is not UTF-8 (src/http/query-bytes.ts),
// read from the request target as sent. An OPTIONS request is a browser's CORS preflight, answered here before
// the login and the parameter gate (src/http/cors.ts). One onRequest step for all of them.
export const requestEdge = (server: Hapi.Server): void => {

    server.ext('onRequest', (request, h) => {

        securityHeaders(request);
        assignRequestId(request);
        if (!wellFormedHost(request.info.host)) {
            throw maximoError('badRequest', 'The Host header is not a host name or address with an optional port.');
        }

        const problem = queryBytesProblem(request.raw.req.url ?? '');
        if (problem !== undefined) {
            throw maximoError('badRequest', problem);
        }

        return request.method === 'options' ? answerOptions(request, h) : h.continue;
    });
};

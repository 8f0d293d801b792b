import * as Http from 'node:http';
import type * as Net from 'node:net';

import type * as Hapi from '@hapi/hapi';

import { reasonCodes } from '../errors/codes';


// A request Node's HTTP parser refuses (a bad request line, a malformed header) never reaches hapi, which
// answers it with a bare "400 Bad Request" and no body. Maximo clients read the JSON error of every status of
// 400 and above, so such a request is answered with the Maximo error shape too. A parse error on a connection
// that is still answering an earlier (pipelined) request is left to hapi, which finishes that answer first.

// What a client can do about it: headers past Node's limit (--max-http-header-size, 16 KB unless set) are sent
// shorter; anything else the parser names.
const overflow = `its request line and headers are larger than the ${Http.maxHeaderSize} bytes this server reads (HPE_HEADER_OVERFLOW): send fewer or shorter headers, or a shorter URL`;
const explained = (code: string | undefined): string => (code === 'HPE_HEADER_OVERFLOW' ? overflow : `it could not be read as HTTP (${code ?? 'parse error'})`);

export const answer = (code: string | undefined): string => {

    const status = code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    const reasonCode = reasonCodes.badRequest.code;
    const body = JSON.stringify({ Error: { message: `${reasonCode} - The request was refused: ${explained(code)}.`, reasonCode, statusCode: String(status) } });
    const reason = status === 431 ? 'Request Header Fields Too Large' : 'Bad Request';
    return `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
};

export const answerParseErrors = (server: Hapi.Server): void => {

    const listener = server.listener;
    const hapis = listener.listeners('clientError') as ((error: Error, socket: Net.Socket) => void)[];
    listener.removeAllListeners('clientError');
    listener.on('clientError', (error: NodeJS.ErrnoException, socket: Net.Socket & { _httpMessage?: unknown }) => {

        if (!socket.writable || socket._httpMessage) {
            hapis.forEach((handler) => handler.call(listener, error, socket));
            return;
        }

        socket.end(answer(error.code));
    });
};

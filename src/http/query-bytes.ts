import { isUtf8 } from 'node:buffer';

import { firstInvalidUtf8 } from './json-body';


// A query string's percent-escapes stand for UTF-8 bytes; the URL parser turns bytes that are no UTF-8 into U+FFFD,
// so `oslc.where=description="%FF"` searched for a character the client never sent, and the same would go into a
// lookup's setupdata. A query whose escapes are not UTF-8 is refused instead (issue 34). A `%` not followed by two
// hex digits is the URL parser's literal `%`, as before.
const escapes = /(?:%[0-9A-Fa-f]{2})+/g;

// The problem with a request target's query, or undefined. Most queries hold no escape and cost one indexOf.
export const queryBytesProblem = (target: string): string | undefined => {

    const start = target.indexOf('?');
    if (start === -1 || target.indexOf('%', start) === -1) {
        return undefined;
    }

    const query = target.slice(start + 1);
    for (const run of query.matchAll(escapes)) {
        const bytes = Buffer.from(run[0].replace(/%/g, ''), 'hex');
        if (!isUtf8(bytes)) {
            const at = run.index + 3 * Math.max(0, firstInvalidUtf8(bytes));
            return `The query string is not UTF-8: its escapes ${query.slice(at, at + 12)} at character ${at} stand for bytes that are no UTF-8 character. Percent-encode the UTF-8 bytes of the text.`;
        }
    }

    return undefined;
};

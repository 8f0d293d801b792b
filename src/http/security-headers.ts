import type * as Hapi from '@hapi/hapi';


// Every answer tells a browser not to guess its type (a JSON answer holding `<script>` must never render as HTML)
// and not to run or load anything from it, nor to show it in another site's frame. PDF reports are shown by the
// browser's own viewer, which a `default-src 'none'` may stop; they keep only the frame rule.
const policy = 'default-src \'none\'; frame-ancestors \'none\'; base-uri \'none\'; form-action \'none\'';
const pdfPolicy = 'frame-ancestors \'none\'';

export const securityHeaders = (server: Hapi.Server): void => {

    server.ext('onPreResponse', (request, h) => {

        const response = request.response;
        if ('isBoom' in response && response.isBoom) {
            response.output.headers['X-Content-Type-Options'] = 'nosniff';
            response.output.headers['Content-Security-Policy'] = policy;
            return h.continue;
        }

        const answer = response as Hapi.ResponseObject;
        const type = String(answer.headers['content-type'] ?? '');
        answer.header('X-Content-Type-Options', 'nosniff');
        answer.header('Content-Security-Policy', type.startsWith('application/pdf') ? pdfPolicy : policy);
        return h.continue;
    });
};

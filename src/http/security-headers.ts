import type * as Hapi from '@hapi/hapi';


// Every answer tells a browser not to guess its type (a JSON answer holding `<script>` must never render as HTML)
// and not to run or load anything from it, nor to show it in another site's frame. The headers are put on the
// raw response when the request arrives, so that every answer, errors included, carries them without a
// response extension on the hot path (a second onPreResponse step measured in the member GET of the bench); a
// handler that answers something a browser shows itself (a PDF report, in the browser's own viewer, which a
// `default-src 'none'` may stop) sets its own policy, which hapi writes over these.
export const contentSecurityPolicy = 'default-src \'none\'; frame-ancestors \'none\'; base-uri \'none\'; form-action \'none\'';
export const pdfContentSecurityPolicy = 'frame-ancestors \'none\'';

export const securityHeaders = (request: Hapi.Request): void => {

    const res = request.raw.res;
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', contentSecurityPolicy);
};

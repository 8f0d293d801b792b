import type * as Hapi from '@hapi/hapi';


// A request header as a string (repeated headers joined), or undefined when absent.
export const header = (request: Hapi.Request, name: string): string | undefined => {

    const value = (request.headers as Record<string, string | string[] | undefined>)[name];
    return Array.isArray(value) ? value.join(',') : value;
};

// Every line of a request header, each on its own. Node joins the repeated lines of most headers into one string
// (`a, b`: a second maxauth would be read as part of the first) and keeps only the first line of others
// (Authorization, Content-Type); headersDistinct keeps them all. server.inject hands arrays through as they came.
export const headerLines = (request: Hapi.Request, name: string): string[] => {

    const distinct = (request.raw.req as { headersDistinct?: Record<string, string[] | undefined> }).headersDistinct;
    const value = distinct ? distinct[name] : (request.headers as Record<string, string | string[] | undefined>)[name];
    return value === undefined ? [] : Array.isArray(value) ? value : [value];
};

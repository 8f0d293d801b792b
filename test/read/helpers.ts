import * as Code from '@hapi/code';

import { QueryError } from '../../src/read/parse/query-error';


const { expect } = Code;

// Runs a parse that must fail and checks the whole error: its type, parameter, column and message.
export const expectQueryError = (parse: () => unknown, parameter: string, position: number, message: string) => {

    const error = expect(parse).to.throw(QueryError) as unknown as QueryError;
    expect(error.parameter).to.equal(parameter);
    expect(error.position).to.equal(position);
    expect(error.message).to.equal(`${parameter}: ${message} at column ${position}`);
};

import * as Boom from '@hapi/boom';

import { reasonCodes, type ReasonName } from './codes';


export interface AttributeError {
    readonly attribute: string;
    readonly objectPath: string;
    readonly message: string;
    readonly reason?: ReasonName;
}

export interface MaximoErrorData {
    readonly reasonCode: string;
    readonly attribute?: string;
    readonly objectPath?: string;
    readonly attrErrors?: readonly AttributeError[];
}

// Builds a Boom error that the error edge renders in Maximo's shape. `detail` is the message a user reads.
export const maximoError = (reason: ReasonName, detail?: string, extra: Omit<MaximoErrorData, 'reasonCode'> = {}): Boom.Boom<MaximoErrorData> => {

    const entry = reasonCodes[reason];
    const error = new Boom.Boom<MaximoErrorData>(detail ?? entry.text, { statusCode: entry.status, data: { reasonCode: entry.code, ...extra } });
    return error;
};

export const attributeError = (error: AttributeError): Boom.Boom<MaximoErrorData> => {

    return maximoError(error.reason ?? 'attributeInvalid', error.message, { attribute: error.attribute, objectPath: error.objectPath });
};

// All attribute errors of one record (header `batcherror: 1`): the first is the answer, all are listed.
export const batchedError = (errors: readonly AttributeError[]): Boom.Boom<MaximoErrorData> => {

    const [first] = errors;
    return maximoError(first!.reason ?? 'attributeInvalid', first!.message, { attribute: first!.attribute, objectPath: first!.objectPath, attrErrors: errors });
};

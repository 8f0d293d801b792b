import type { ResourceRequest } from '../../request';
import { hooksOf } from '../../structures/hooks';
import type { Attribute, BusinessObject } from '../../structures/registry';
import type { Row } from '../execute/find';
import { allowedActions } from './allowed-actions';
import type { SerializeOptions } from './serialize';


// How records render for this request: its render flags, the home its links are built on, and what its user
// may see — a secret renders as the object's reveal hook says (an API key's value: to its owner and to
// administrators), every other secret stays hidden. The read and the write pipelines render so alike. One
// answer renders at most OSPREY_MAX_ANSWER_ROWS rows (./serialize.ts).
export const serializeOptions = (req: ResourceRequest): SerializeOptions => {

    const { osprey, user, render } = req;
    return {
        reveal: (object: BusinessObject, attr: Attribute, row: Row) => hooksOf(object).reveal?.(attr, row, user, osprey),
        home: req.home,
        dropNulls: render.dropNulls,
        collectionRefs: render.collectionRefs,
        rowstamps: render.rowstamps,
        internalValues: render.internalValues,
        domains: osprey.registry.domains(),
        allowedActions: allowedActions(osprey, user),
        answerRows: { limit: osprey.options.maxAnswerRows, parameter: req.read.select?.parameter ?? 'oslc.select', used: 0 },
        documents: { inline: render.inlineDocuments === true, storeOf: (document) => osprey.attachments.storeOf(document), bytes: { limit: osprey.options.maxBody, used: 0 } }
    };
};

import type { MaximoTypeName } from './types';


// The shapes of validated YAML (what structures/schema.ts accepts, with its defaults applied).

export interface AttributeDef {
    type: MaximoTypeName;
    length?: number;
    scale?: number;
    title?: string;
    description?: string;
    required: boolean;
    default?: string | number | boolean;
    domain?: string;
    lookup?: string;
    generated: boolean;
    autokey?: boolean | { prefix: string; start: number };
    readonly: boolean;
    persistent: boolean;
    index: boolean;
    secret: boolean;
    search: boolean;
}

export interface ObjectDef {
    object: string;
    table?: string;
    description?: string;
    uniqueColumn: string;
    primaryKey: string[];
    attributes: Record<string, AttributeDef>;
    indexes: string[][];
    children?: Record<string, ChildDef>;
}

export interface AttachmentsDef {
    attachments: true;
    /** The largest document of one record (bytes), under the server's OSPREY_MAX_ATTACHMENT. */
    maxSize?: number;
}

export interface ChildObjectDef extends ObjectDef {
    join: Record<string, string>;
}

export type ChildDef = AttachmentsDef | ChildObjectDef;

export interface RelationDef {
    structure: string;
    cardinality: 'one' | 'many';
    join: Record<string, string>;
    onDelete?: 'restrict' | 'cascade' | 'ignore';
    description?: string;
}

export interface LookupDef {
    structure?: string;
    domain?: string;
    value?: string;
    where?: string;
    description?: string;
}

export interface SavedQueryDef {
    title: string;
    description?: string;
    where: string;
    params: Record<string, { type: MaximoTypeName; required: boolean }>;
}

export interface ActionDef {
    name: string;
    handler: string;
    description?: string;
    scope: 'record' | 'collection';
}

export interface RouteDef {
    instruction: string;
    next?: string;
}

export interface TaskDef {
    description: string;
    groups: string[];
    users: string[];
    dueHours?: number;
}

// One node of a workflow: exactly one of if, status, set, action or task.
export interface NodeDef {
    description?: string;
    if?: string;
    then?: string;
    else?: string;
    status?: string;
    memo?: string;
    set?: Record<string, string | number | boolean | null>;
    action?: string;
    payload?: Record<string, unknown>;
    task?: TaskDef;
    positive?: RouteDef;
    negative?: RouteDef;
    next?: string;
}

export interface WorkflowDef {
    description?: string;
    condition?: string;
    start: string;
    nodes: Record<string, NodeDef>;
}

export interface ReportColumnDef {
    name: string;
    title?: string;
    width?: number;
    format?: string;
}

export interface ReportDef {
    name: string;
    title: string;
    columns?: (string | ReportColumnDef)[];
    handler?: string;
    where?: string;
    timezone?: string;
    dateFormat?: string;
    datetimeFormat?: string;
    groupBy?: string;
    totals?: string[];
    bom?: boolean;
}

export interface AccessDef {
    read: string[];
    insert: string[];
    update: string[];
    delete: string[];
    actions: string[];
    owner?: string;
}

export interface StructureDef extends ObjectDef {
    name: string;
    title?: string;
    app?: string;
    pageSize?: number;
    relations: Record<string, RelationDef>;
    lookups: Record<string, LookupDef>;
    statuses?: Record<string, string[]>;
    statusAttribute: string;
    statusHistory?: string;
    savedQueries: Record<string, SavedQueryDef>;
    actions: ActionDef[];
    workflows: Record<string, WorkflowDef>;
    reports: ReportDef[];
    access: AccessDef;
}

export interface DomainValue {
    value: string | number;
    description: string;
    maxvalue?: string;
}

export interface DomainDef {
    description?: string;
    type: 'ALN' | 'NUMERIC' | 'SYNONYM';
    values: DomainValue[];
}

export const isAttachments = (child: ChildDef): child is AttachmentsDef => 'attachments' in child;

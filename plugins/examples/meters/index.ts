import type * as Hapi from '@hapi/hapi';

import { maximoError, type AttributeWrite, type BusinessObject, type Registry, type Row } from '../../../src';


// An example plugin (issue 35), built on the package root alone as a plugin outside the repository would be: it
// records meter readings. Maximo's clients add a reading by writing ASSETMETER's non-persistent `newreading` (and
// optionally `newreadingdate`) in a merge of the asset, as the npm client's AssetService.addMeter(asset, meter,
// reading) and updateMeterReading do:
//
//     POST …/os/mxapiasset/{id}   x-method-override: PATCH   patchtype: MERGE
//     {"assetmeter": [{"metername": "TEMP", "newreading": 40}]}
//
// For each meter row a write creates or updates with a reading, the plugin's handler (server.onAttributeWrite)
// adds a METERREADING row below the meter and sets the meter's lastreading and lastreadingdate, through the write
// engine (one merge of the record, as the write's user), in the write's transaction: the reading is kept with the
// write or not at all. A meter the asset does not have yet is added by the same write, as addMeter expects (Osprey
// keeps no meter definitions, METER, for a reading to name). The demo loads it (src/features.ts); any server whose
// structures declare ASSETMETER.NEWREADING non-persistent may load it (OSPREY_PLUGINS).

const meterObject = 'ASSETMETER';
const readingObject = 'METERREADING';

// Whether the structures declare what the plugin works on: ASSETMETER's non-persistent newreading, and the
// METERREADING rows below the meter, in a structure whose record has the meters as a child.
const readingsOf = (object: BusinessObject): boolean => {

    const newreading = object.attributes.get('newreading');
    return object.name === meterObject && newreading !== undefined && !newreading.persistent && [...object.children.values()].some((child) => child.object.name === readingObject);
};

export const metersDeclared = (registry: Registry): boolean => registry.list().some((structure) => [...structure.root.children.values()].some((child) => readingsOf(child.object)));

// The child collections (by their names in the structure) from the record down to its meters and their readings.
const namesOf = (call: AttributeWrite): { meters: string; readings: string } => {

    const meters = [...call.structure.root.children.values()].find((child) => child.object === call.object);
    const readings = [...call.object.children.values()].find((child) => child.object.name === readingObject);
    if (!meters || !readings) {
        // Claimed on an object the structures place elsewhere: the server's set-up, not the client's request.
        throw new Error(`The meters example records readings of ${meterObject} rows that are children of a record, with ${readingObject} rows below them; ${call.structure.name} has none.`);
    }

    return { meters: meters.name, readings: readings.name };
};

const refuse = (call: AttributeWrite, attribute: string, message: string) => {

    return maximoError('attributeInvalid', message, { attribute, objectPath: call.object.path });
};

const recordReading = async (call: AttributeWrite): Promise<void> => {

    const { values, row } = call;
    const metername = String(row.metername);
    // The YAML's type has checked the value (a decimal: 40 or "40"); null is no reading.
    if (values.newreading === undefined || values.newreading === null) {
        const attribute = values.newreading === null ? 'newreading' : 'newreadingdate';
        throw refuse(call, attribute, `${meterObject}.${attribute.toUpperCase()} of the meter ${metername}: a reading is a number in newreading (newreadingdate, when given, dates it).`);
    }

    // The meter as the write left it (a created row answers only its keys), read in the write's transaction.
    const meter = await call.models.get(meterObject)!.query().findOne({ assetnum: row.assetnum, siteid: row.siteid, metername }) as unknown as Row;
    if (meter.active === false || meter.active === 0) {
        throw refuse(call, 'newreading', `The meter ${metername} of asset ${String(row.assetnum)} is not active: it takes no readings.`);
    }

    // A reading is of something measured: not dated after now (a minute's leeway for the client's clock).
    if (values.newreadingdate !== undefined && values.newreadingdate !== null && new Date(String(values.newreadingdate)).getTime() > call.now.getTime() + 60_000) {
        throw refuse(call, 'newreadingdate', `${meterObject}.NEWREADINGDATE of the meter ${metername}: ${String(values.newreadingdate)} is in the future; a reading is dated when it was taken.`);
    }

    const reading = values.newreading;
    const date = values.newreadingdate ?? call.now.toISOString();
    const { meters, readings } = namesOf(call);
    // A reading dated before the meter's last one joins its history; the last reading stays the latest-dated.
    const stored = meter.lastreadingdate;
    const last = stored === null || stored === undefined ? undefined : (stored instanceof Date ? stored : new Date(String(stored))).getTime();
    const latest = last === undefined || new Date(String(date)).getTime() >= last;
    await call.write.merge(call.structure.name, call.record, {
        [meters]: [{ metername, ...latest ? { lastreading: reading, lastreadingdate: date } : {}, [readings]: [{ reading, readingdate: date }] }]
    });
};

export const meters: Hapi.Plugin<void> = {
    name: 'osprey-example-meters',
    // The application plugin sets server.app.osprey and the decorations before any feature or plugin registers.
    dependencies: ['osprey'],
    register: (server) => {

        if (!metersDeclared(server.structures())) {
            throw new Error(`The meters example needs ${meterObject}.NEWREADING declared persistent: false, and ${readingObject} rows below the meter (structures/mxapiasset.yaml).`);
        }

        server.onAttributeWrite(meterObject, ['newreading', 'newreadingdate'], recordReading);
    }
};

// As a module OSPREY_PLUGINS names: its default export is the plugin.
export default meters;

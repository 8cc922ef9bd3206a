import proto from '@temporalio/proto';

/** Temporal's API enums (the proto package is CommonJS, so it is imported whole). */
export const enums = proto.temporal.api.enums.v1;

/**
 * The OCC release this checkout builds. One constant for both ends: `occ version` prints it as the
 * client's version, and the controller answers it on `GET /version` (and in /openapi.json), so a
 * CLI and a server from different releases can tell.
 */
export const OCC_VERSION = '0.1.0';

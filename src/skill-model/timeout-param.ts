/**
 * The reserved tool-input property carrying a call's deadline in seconds, in
 * every tier that has one. A skill cannot declare a parameter of this name.
 */
export const TIMEOUT_PARAM = 'timeout_seconds'

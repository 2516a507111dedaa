/**
 * zlib level for the PNGs Deskhand writes (screenshots and their annotated copies): on flat frames of
 * text and controls, level 2 keeps most of level 9's gain for a fraction of its time. Its own module so
 * the host can use it without loading nut.js (screen.ts does).
 */
export const PNG_COMPRESSION_LEVEL = 2;

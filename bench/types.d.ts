// autocannon ships no type declarations; the load worker types what it uses itself.
declare module 'autocannon';

// Tables of the studio feature (filled in by its issue).
export {};

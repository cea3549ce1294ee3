// Tables of the campaigns feature (filled in by its issue).
export {};

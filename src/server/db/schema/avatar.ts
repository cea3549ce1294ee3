// Tables of the avatar feature (filled in by its issue).
export {};

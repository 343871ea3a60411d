/* A minimal arena bot in C, for the stdio bridge (arena connect --exec ./bot) and the
 * local runner (arena play/compare/tournament --bots exec:./bot).
 *
 *   cc -O2 -o bot bot.c
 *
 * It reads the line protocol (docs/bots.md) on stdin: "arena 1", "start {...}",
 * "turn {...}", "legal {...}", "rejected {...}", "over {...}", "quit". After each
 * "turn" line it prints one line, its move: the first move of the turn's "legal" list,
 * or -- when there are too many to list (the substitution game) -- a move built step by
 * step: the first legal next step, asking "?legal STEPS" after each, until none is left.
 * Lines starting with '#' are debug lines: the arena keeps them with the game's log.
 *
 * No JSON library: it only needs the first string of a list, which `first_string`
 * finds after a key. A real bot would use a JSON parser (cJSON, jansson...).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_BYTES (1 << 20)

static char line[LINE_MAX_BYTES];

/* The first string of the JSON array that follows "key": in text, unescaped into out.
 * Returns 1 if found, 0 if the array is empty or null, -1 if the key is absent. */
static int first_string(const char *text, const char *key, char *out, size_t size) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":", key);
    const char *at = strstr(text, pattern);
    if (at == NULL) return -1;
    at += strlen(pattern);
    if (strncmp(at, "null", 4) == 0) return 0;
    at = strchr(at, '[');
    if (at == NULL || at[1] != '"') return 0;
    at += 2;
    size_t n = 0;
    while (*at && *at != '"' && n + 1 < size) {
        if (*at == '\\' && at[1]) at++;  /* move strings need no other escapes */
        out[n++] = *at++;
    }
    out[n] = '\0';
    return 1;
}

/* The JSON string value of "key" (e.g. "separator"), or the fallback. */
static void string_value(const char *text, const char *key, char *out, size_t size,
                         const char *fallback) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
    const char *at = strstr(text, pattern);
    size_t n = 0;
    if (at != NULL) {
        at += strlen(pattern);
        while (*at && *at != '"' && n + 1 < size) out[n++] = *at++;
        out[n] = '\0';
    } else {
        snprintf(out, size, "%s", fallback);
    }
}

static int read_line(void) {
    if (fgets(line, sizeof line, stdin) == NULL) return 0;
    line[strcspn(line, "\r\n")] = '\0';
    return 1;
}

/* A move built one step at a time with "?legal" queries. */
static void build_by_steps(const char *turn, char *move, size_t size) {
    char step[256], separator[16];
    string_value(turn, "separator", separator, sizeof separator, ", ");
    move[0] = '\0';
    const char *options = strstr(turn, "\"legal_steps\":");
    if (options == NULL) return;
    char *copy = strdup(options);
    while (first_string(copy, "steps", step, sizeof step) == 1) {
        if (move[0] != '\0') strncat(move, separator, size - strlen(move) - 1);
        strncat(move, step, size - strlen(move) - 1);
        printf("?legal %s\n", move);
        fflush(stdout);
        free(copy);
        if (!read_line() || strstr(line, "\"error\":") != NULL) return;
        copy = strdup(line);
    }
    free(copy);
}

int main(void) {
    static char move[65536];
    int turns = 0;
    while (read_line()) {
        if (strncmp(line, "turn ", 5) == 0) {
            turns++;
            int listed = first_string(line, "legal", move, sizeof move);
            if (listed != 1) {
                printf("# too many moves to list: building one step by step\n");
                build_by_steps(line, move, sizeof move);
            }
            printf("# turn %d: playing \"%s\"\n", turns, move);
            printf("%s\n", move);
            fflush(stdout);
        } else if (strncmp(line, "over ", 5) == 0) {
            fprintf(stderr, "game over: %s\n", line + 5);
        } else if (strcmp(line, "quit") == 0) {
            break;
        }
        /* "arena", "start" and "rejected" lines need no answer */
    }
    return 0;
}

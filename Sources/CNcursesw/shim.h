#ifndef AUTHDECK_CNCURSESW_SHIM_H
#define AUTHDECK_CNCURSESW_SHIM_H
// SwiftPM drops -D flags from pkg-config, so the wide-character API is switched on here.
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#include <locale.h>
#include <stdio.h>
#include <wchar.h>
#include <ncursesw/curses.h>
#include <ncursesw/term.h>

// Macros and globals that Swift cannot import, as small inline functions.
static inline WINDOW *cncursesw_stdscr(void) { return stdscr; }
static inline int cncursesw_lines(void) { return LINES; }
static inline int cncursesw_cols(void) { return COLS; }
static inline int cncursesw_colors(void) { return COLORS; }
static inline int cncursesw_color_pairs(void) { return COLOR_PAIRS; }
static inline attr_t cncursesw_a_bold(void) { return A_BOLD; }
static inline attr_t cncursesw_a_reverse(void) { return A_REVERSE; }
static inline attr_t cncursesw_a_underline(void) { return A_UNDERLINE; }
static inline attr_t cncursesw_a_dim(void) { return A_DIM; }
static inline attr_t cncursesw_a_normal(void) { return A_NORMAL; }
static inline attr_t cncursesw_color_pair(short n) { return (attr_t)COLOR_PAIR(n); }
static inline int cncursesw_key_resize(void) { return KEY_RESIZE; }
static inline int cncursesw_key_mouse(void) { return KEY_MOUSE; }
static inline int cncursesw_key_f(int n) { return KEY_F(n); }
static inline int cncursesw_err(void) { return ERR; }
static inline int cncursesw_ok(void) { return OK; }
static inline mmask_t cncursesw_button1_clicked(void) { return BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_RELEASED; }
static inline mmask_t cncursesw_button4_pressed(void) { return BUTTON4_PRESSED; }
static inline mmask_t cncursesw_button5_pressed(void) { return BUTTON5_PRESSED; }
static inline mmask_t cncursesw_all_mouse_events(void) { return ALL_MOUSE_EVENTS; }
static inline mmask_t cncursesw_button1_pressed(void) { return BUTTON1_PRESSED; }
static inline int cncursesw_key_code_yes(void) { return KEY_CODE_YES; }

// Starts curses on the process's standard streams; unlike initscr it returns NULL instead of exiting when
// $TERM is unknown, so the caller can print a normal error.
static inline SCREEN *cncursesw_start(void) { return newterm(NULL, stdout, stdin); }

// Whether $TERM's description can move the cursor (`cup`): 1 yes, 0 no (`dumb`, a printer), -1 no description.
// Read without taking over the terminal, so a refusal leaves it as it was.
static inline int cncursesw_can_address_cursor(void) {
    int error = 0;
    if (setupterm(NULL, fileno(stdout), &error) != OK) { return -1; }
    const char *move = tigetstr("cup");
    int can = move != NULL && move != (const char *)-1;
    del_curterm(cur_term);
    return can;
}

/// Writes one cell: a wide-character string (a base character plus combining marks) with attributes and a pair.
static inline int cncursesw_put_cell(int y, int x, const wchar_t *chars, attr_t attrs, short pair) {
    cchar_t cell;
    if (setcchar(&cell, chars, attrs, pair, NULL) != OK) { return ERR; }
    return mvadd_wch(y, x, &cell);
}
#endif

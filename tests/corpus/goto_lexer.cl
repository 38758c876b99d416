// A small lexer as a state machine of labels: each work-item scans the
// string from its own offset and counts identifiers, numbers and
// punctuation (three outputs per work-item). The identifier and number
// states are loops of their own inside the scanning loop.
// @kernel lex
// @range 8 / 4
// @arg buffer int zeros(24)
// @expect 0 [3, 2, 7, 2, 3, 7, 2, 2, 7, 2, 2, 7, 2, 2, 6, 2, 2, 6, 2, 2, 6, 2, 2, 6]
__constant char src[] = "x1 = foo+42*(bar_2 - 7);";

__kernel void lex(__global int *out)
{
    int i = get_global_id(0);
    int pos = i;
    int idents = 0, numbers = 0, puncts = 0;
    char c;
start:
    c = src[pos];
    if (c == 0)
        goto done;
    if (c == ' ') {
        pos++;
        goto start;
    }
    if ((c >= 'a' && c <= 'z') || c == '_')
        goto ident;
    if (c >= '0' && c <= '9')
        goto number;
    puncts++;
    pos++;
    goto start;
ident:
    pos++;
    c = src[pos];
    if ((c >= 'a' && c <= 'z') || c == '_' || (c >= '0' && c <= '9'))
        goto ident;
    idents++;
    goto start;
number:
    pos++;
    c = src[pos];
    if (c >= '0' && c <= '9')
        goto number;
    numbers++;
    goto start;
done:
    out[3 * i] = idents;
    out[3 * i + 1] = numbers;
    out[3 * i + 2] = puncts;
}

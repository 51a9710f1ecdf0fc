/* SPDX-License-Identifier: MIT */
/*
 * Thesis section 4.4.3, "Recursive Data Structures and Recursive Function
 * Calls": this code is NOT valid PENCIL.  It breaks these rules:
 *   - recursion: find calls itself (PENCIL forbids recursive calls, since
 *     OpenCL does not support recursion);
 *   - pointer dereferencing: node->value, node->left, node->right (only
 *     array subscripts may access memory in PENCIL), and pointer reads
 *     (`!node`, returning a pointer);
 *   - return statements in the middle of the function (PENCIL allows
 *     `return` only as the last statement, so functions are SESE regions).
 *
 * Changes from the printed text: the recursive calls pass `value` (the
 * thesis writes find(node->left), which does not compile against the
 * two-parameter definition), and <stddef.h> is included for NULL.  The
 * search direction (larger values to the left) is as printed.
 */
#include <stddef.h>

struct node
{
    int value;
    struct node* left;
    struct node* right;
};

struct node* find(struct node* node, int value)
{
    if (!node)
        return NULL;
    if (node->value == value)
        return node;
    if (value > node->value)
        return find(node->left, value);
    else
        return find(node->right, value);
}

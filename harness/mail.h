/* mail.h - kpair report --mail DIR: a message ready for a kernel mailing list (mail.c) */
#ifndef KPAIR_MAIL_H
#define KPAIR_MAIL_H

/* DIR/mail.txt of the A/B, bisect or night in @dir, printed too; 0 or -1 */
int report_mail(const char *dir);

#endif

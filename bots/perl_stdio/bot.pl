#!/usr/bin/env perl
# A Curia bot in Perl through the arena's stdio bridge (docs/bots.md): one JSON line in
# per decision, one decision's notation out. Core modules only (JSON::PP).
use strict;
use warnings;
use JSON::PP;

$| = 1;                                            # answers must not sit in a buffer
srand(($ENV{CURIA_BOT_SEED} // 0) % 4294967296);
my $json = JSON::PP->new;
while (my $line = <STDIN>) {
    my $message = $json->decode($line);
    last if $message->{type} eq 'end';
    next unless $message->{type} eq 'decide';
    my @legal = @{ $message->{legal} };
    # Take a Decurion when one is offered; never skip when anything else is possible.
    my @best = grep { /^exchange / } @legal;
    @best = grep { $_ ne 'skip' } @legal unless @best;
    @best = @legal unless @best;
    print $best[ int rand @best ], "\n";
}

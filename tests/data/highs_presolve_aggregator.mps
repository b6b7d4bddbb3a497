NAME        
ROWS
 N  Obj     
 E  r0      
 E  r1      
 E  r2      
 E  r3      
 L  r4      
 L  r5      
 L  r6      
 L  r7      
 L  r8      
 L  r9      
 L  r10     
 L  r11     
 L  r12     
 L  r13     
 L  r14     
 L  r15     
 L  r16     
 G  r17     
 G  r18     
 G  r19     
 G  r20     
 G  r21     
 G  r22     
 E  r23     
 E  r24     
 E  r25     
 E  r26     
 E  r27     
 E  r28     
 E  r29     
 E  r30     
 E  r31     
 E  r32     
 E  r33     
 E  r34     
 E  r35     
 E  r36     
 E  r37     
 G  r38     
 G  r39     
 G  r40     
 G  r41     
 G  r42     
 G  r43     
 G  r44     
 G  r45     
 G  r46     
 G  r47     
 G  r48     
 G  r49     
 G  r50     
 G  r51     
 G  r52     
 G  r53     
 G  r54     
 G  r55     
 G  r56     
 G  r57     
 G  r58     
 G  r59     
 G  r60     
 G  r61     
 G  r62     
 G  r63     
 G  r64     
 G  r65     
 G  r66     
 G  r67     
 G  r68     
 G  r69     
 G  r70     
 G  r71     
 G  r72     
 G  r73     
 L  r74     
 L  r75     
 L  r76     
 L  r77     
 L  r78     
 L  r79     
COLUMNS
    MARK0000  'MARKER'                 'INTORG'
    c0        r4        -4
    c0        r17       -2
    c1        r5        -3
    c1        r18       -2
    c2        r6        -1
    c2        r7        -1
    c2        r19       -2
    c3        r8        -4
    c3        r9        -3
    c3        r20       -2
    c4        r10       -4
    c4        r11       -1
    c4        r12       -1
    c4        r21       -2
    c5        r13       -4
    c5        r14       -3
    c5        r15       -1
    c5        r16       -1
    c5        r22       -2
    c6        r0        1
    c6        r4        1
    c6        r17       1
    c6        r23       -1
    c6        r29       -1
    c7        r1        1
    c7        r5        1
    c7        r18       1
    c7        r24       -1
    c7        r30       -1
    c8        r2        1
    c8        r6        1
    c8        r19       1
    c8        r25       -1
    c8        r31       -1
    c9        r3        1
    c9        r7        1
    c9        r19       1
    c9        r25       -1
    c9        r32       -1
    c10       Obj       1
    c10       r0        1
    c10       r8        1
    c10       r20       1
    c10       r26       -1
    c10       r33       -1
    c11       Obj       1
    c11       r1        1
    c11       r9        1
    c11       r20       1
    c11       r26       -1
    c11       r33       -1
    c12       Obj       1
    c12       r0        1
    c12       r10       1
    c12       r21       1
    c12       r27       -1
    c12       r34       -1
    c13       Obj       1
    c13       r2        1
    c13       r11       1
    c13       r21       1
    c13       r27       -1
    c13       r34       -1
    c14       Obj       1
    c14       r3        1
    c14       r12       1
    c14       r21       1
    c14       r27       -1
    c14       r35       -1
    c15       Obj       2
    c15       r0        1
    c15       r13       1
    c15       r22       1
    c15       r28       -1
    c15       r36       -1
    c16       Obj       2
    c16       r1        1
    c16       r14       1
    c16       r22       1
    c16       r28       -1
    c16       r36       -1
    c17       Obj       2
    c17       r2        1
    c17       r15       1
    c17       r22       1
    c17       r28       -1
    c17       r36       -1
    c18       Obj       2
    c18       r3        1
    c18       r16       1
    c18       r22       1
    c18       r28       -1
    c18       r37       -1
    MARK0001  'MARKER'                 'INTEND'
    c19       r23       1
    c19       r38       8
    c19       r39       1
    c19       r40       9
    c19       r56       -8
    c19       r57       -1
    c19       r58       -9
    c19       r74       -12
    c20       r24       1
    c20       r41       8
    c20       r42       1
    c20       r43       9
    c20       r59       -8
    c20       r60       -1
    c20       r61       -9
    c20       r75       -12
    c21       r25       1
    c21       r44       8
    c21       r45       1
    c21       r46       9
    c21       r62       -8
    c21       r63       -1
    c21       r64       -9
    c21       r76       -12
    c22       r26       1
    c22       r47       8
    c22       r48       1
    c22       r49       9
    c22       r65       -8
    c22       r66       -1
    c22       r67       -9
    c22       r77       -12
    c23       r27       1
    c23       r50       8
    c23       r51       1
    c23       r52       9
    c23       r68       -8
    c23       r69       -1
    c23       r70       -9
    c23       r78       -12
    c24       r28       1
    c24       r53       8
    c24       r54       1
    c24       r55       9
    c24       r71       -8
    c24       r72       -1
    c24       r73       -9
    c24       r79       -12
    c25       r29       1
    c25       r38       -9
    c25       r40       -9
    c25       r56       9
    c25       r58       9
    c26       r30       1
    c26       r41       -9
    c26       r43       -9
    c26       r59       9
    c26       r61       9
    c27       r31       1
    c27       r44       -9
    c27       r46       -9
    c27       r62       9
    c27       r64       9
    c28       r32       1
    c28       r45       -9
    c28       r46       -9
    c28       r63       9
    c28       r64       9
    c29       r33       1
    c29       r47       -9
    c29       r49       -9
    c29       r65       9
    c29       r67       9
    c30       r34       1
    c30       r50       -9
    c30       r52       -9
    c30       r68       9
    c30       r70       9
    c31       r35       1
    c31       r51       -9
    c31       r52       -9
    c31       r69       9
    c31       r70       9
    c32       r36       1
    c32       r53       -9
    c32       r55       -9
    c32       r71       9
    c32       r73       9
    c33       r37       1
    c33       r54       -9
    c33       r55       -9
    c33       r72       9
    c33       r73       9
    c34       r38       1
    c34       r56       1
    c34       r74       1
    c35       r39       1
    c35       r57       1
    c35       r74       1
    c36       r40       1
    c36       r58       1
    c36       r74       1
    c37       r41       1
    c37       r59       1
    c37       r75       1
    c38       r42       1
    c38       r60       1
    c38       r75       1
    c39       r43       1
    c39       r61       1
    c39       r75       1
    c40       r44       1
    c40       r62       1
    c40       r76       1
    c41       r45       1
    c41       r63       1
    c41       r76       1
    c42       r46       1
    c42       r64       1
    c42       r76       1
    c43       r47       1
    c43       r65       1
    c43       r77       1
    c44       r48       1
    c44       r66       1
    c44       r77       1
    c45       r49       1
    c45       r67       1
    c45       r77       1
    c46       r50       1
    c46       r68       1
    c46       r78       1
    c47       r51       1
    c47       r69       1
    c47       r78       1
    c48       r52       1
    c48       r70       1
    c48       r78       1
    c49       r53       1
    c49       r71       1
    c49       r79       1
    c50       r54       1
    c50       r72       1
    c50       r79       1
    c51       r55       1
    c51       r73       1
    c51       r79       1
RHS
    RHS_V     r0        4
    RHS_V     r1        3
    RHS_V     r2        1
    RHS_V     r3        1
BOUNDS
 BV BOUND     c0      
 BV BOUND     c1      
 BV BOUND     c2      
 BV BOUND     c3      
 BV BOUND     c4      
 BV BOUND     c5      
 UI BOUND     c6        4
 UI BOUND     c7        3
 BV BOUND     c8      
 BV BOUND     c9      
 UI BOUND     c10       4
 UI BOUND     c11       3
 UI BOUND     c12       4
 BV BOUND     c13     
 BV BOUND     c14     
 UI BOUND     c15       4
 UI BOUND     c16       3
 BV BOUND     c17     
 BV BOUND     c18     
 UP BOUND     c19       4
 UP BOUND     c20       3
 UP BOUND     c21       2
 UP BOUND     c22       7
 UP BOUND     c23       6
 UP BOUND     c24       9
 UP BOUND     c25       4
 UP BOUND     c26       3
 UP BOUND     c27       1
 UP BOUND     c28       1
 UP BOUND     c29       7
 UP BOUND     c30       5
 UP BOUND     c31       1
 UP BOUND     c32       8
 UP BOUND     c33       1
ENDATA

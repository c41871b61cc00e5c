; ModuleID = 'wgc'
target datalayout = "e-m:e-p:32:32-i1:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%"class.RWStructuredBuffer<uint>" = type opaque

@ConsumerResults = external constant %"class.RWStructuredBuffer<uint>"

declare void @ConsumerNode0()

declare void @ConsumerNode1()

declare void @ConsumerNode2()

declare void @ConsumerNode63()

declare void @DispatchNode()

!llvm.ident = !{!0}
!dx.version = !{!1}
!dx.shaderModel = !{!2}
!dx.resources = !{!3}
!dx.entryPoints = !{!7, !8, !16, !19, !22, !25}
!wgc.spirv.entryPoints = !{!31, !32, !33, !34, !35}
!wgc.experimental.tags = !{!36, !37}

!0 = !{!"wgc 0.1.0"}
!1 = !{i32 1, i32 9}
!2 = !{!"lib", i32 6, i32 9}
!3 = !{null, !4, null, null}
!4 = !{!5}
!5 = !{i32 0, %"class.RWStructuredBuffer<uint>"* @ConsumerResults, !"ConsumerResults", i32 0, i32 0, i32 1, i32 12, i1 false, i1 false, i1 false, !6}
!6 = !{i32 1, i32 4}
!7 = !{null, !"", null, !3, null}
!8 = !{void ()* @ConsumerNode0, !"ConsumerNode0", null, null, !9}
!9 = !{i32 8, i32 15, i32 13, i32 3, i32 15, !10, i32 16, i32 -1, i32 20, !11, i32 4, !14, i32 5, !15}
!10 = !{!"ConsumerNodes", i32 0}
!11 = !{!12}
!12 = !{i32 1, i32 33, i32 2, !13}
!13 = !{i32 0, i32 8, i32 2, i32 4}
!14 = !{i32 1, i32 1, i32 1}
!15 = !{i32 0}
!16 = !{void ()* @ConsumerNode1, !"ConsumerNode1", null, null, !17}
!17 = !{i32 8, i32 15, i32 13, i32 3, i32 15, !18, i32 16, i32 -1, i32 20, !11, i32 4, !14, i32 5, !15}
!18 = !{!"ConsumerNodes", i32 1}
!19 = !{void ()* @ConsumerNode2, !"ConsumerNode2", null, null, !20}
!20 = !{i32 8, i32 15, i32 13, i32 3, i32 15, !21, i32 16, i32 -1, i32 20, !11, i32 4, !14, i32 5, !15}
!21 = !{!"ConsumerNodes", i32 2}
!22 = !{void ()* @ConsumerNode63, !"ConsumerNode63", null, null, !23}
!23 = !{i32 8, i32 15, i32 13, i32 3, i32 15, !24, i32 16, i32 -1, i32 20, !11, i32 4, !14, i32 5, !15}
!24 = !{!"ConsumerNodes", i32 63}
!25 = !{void ()* @DispatchNode, !"DispatchNode", null, null, !26}
!26 = !{i32 8, i32 15, i32 13, i32 1, i32 14, i1 true, i32 15, !27, i32 16, i32 -1, i32 18, !14, i32 21, !28, i32 4, !30, i32 5, !15}
!27 = !{!"DispatchNode", i32 0}
!28 = !{!29}
!29 = !{i32 1, i32 22, i32 2, !13, i32 3, i32 64, i32 5, i32 64, i32 6, i1 true, i32 0, !10, i32 7, i32 1}
!30 = !{i32 64, i32 1, i32 1}
!31 = !{void ()* @ConsumerNode0, !"ConsumerNode0"}
!32 = !{void ()* @ConsumerNode1, !"ConsumerNode1"}
!33 = !{void ()* @ConsumerNode2, !"ConsumerNode2"}
!34 = !{void ()* @ConsumerNode63, !"ConsumerNode63"}
!35 = !{void ()* @DispatchNode, !"DispatchNode"}
!36 = !{!"NodeMaxLoopIterations", i32 131072}
!37 = !{!"NodeMaxRecordsPerLoopIteration", i32 131073}
